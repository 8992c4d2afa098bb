"""The Python module's benchmark (scripts/bench-python runs it): in one process, per format, on the
same 16M-element tensor of ggml-quantized blocks (testdata's quantizer blocks, tiled):

  quants.dequantize (1 thread, default threads) against gguf-py's gguf.quants.dequantize;
  Tensor.numpy() and quants.dequantize against np.full(shape, 1.0, np.float32) of the same output
  (allocating and touching a fresh array is the floor for any function that returns one);
  the peak memory of Tensor.numpy(): the growth of VmHWM (reset before the call) against its
  output array, and the part of it freed on return (scratch);
  Tensor.numpy(out=reused): the same decode into one preallocated array reused across the calls
  (no page faults: what a loader that reuses its buffers pays);
  for F16, np.fromfile of the tensor's bytes + astype(np.float32), the plain numpy way to read it
  (issue 35's target: Tensor.numpy() within 1.2x of it).

Then quants.quantize against gguf-py's gguf.quants.quantize, for the types gguf-py quantizes, on the
same float32 rows (1 thread and default threads; target >= 50x for Q8_0 and Q4_0), bytes compared,
beside the floor of any quantizer: reading the input once (x.max()), on one thread and on as many
threads as onnxq uses by default (each thread x.max() of its share of the rows).

Every other call makes a fresh output array on both sides. Each time is the best of --repeat calls,
the calls of a format interleaved. Outputs are compared with gguf-py's bit for bit (NaN as NaN), and
out=reused's with numpy()'s.
"""

import argparse
import importlib.util
import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cli"))  # gguf_tool: an independent GGUF writer
import gguf_tool  # noqa: E402

TARGETS = {"quantize Q8_0 and Q4_0 vs gguf-py": 50.0, "vs gguf-py geomean": 10.0, "vs gguf-py min": 3.0, "vs full geomean": 1.5, "vs full max": 3.0,
           "F16 vs fromfile": 1.2}


def import_gguf_py(path):
    sys.path.insert(0, str(path))
    if importlib.util.find_spec("sentencepiece") is None:  # gguf-py imports it at package import only
        stubs = Path(path) / "stubs"
        if (stubs / "sentencepiece.py").exists():
            sys.path.insert(0, str(stubs))
        else:
            sys.modules["sentencepiece"] = types.SimpleNamespace(SentencePieceProcessor=None)
    from gguf import quants, GGMLQuantizationType  # noqa: E402
    return quants, GGMLQuantizationType


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
        del out
    return min(times)


def best_interleaved(fns, repeat):
    """The best time of each function over `repeat` rounds, each round calling every function once:
    a slow stretch of the machine (its memory bandwidth drifts by 10-20% over seconds here) then
    costs every side one round instead of all of one side's calls."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, t in zip(fns, times):
            start = time.perf_counter()
            out = fn()
            t.append(time.perf_counter() - start)
            del out
    return [min(t) for t in times]


def status_kib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def peak_memory_mib(fn):
    """(growth of the peak RSS during fn(), the part of it gone once fn() returned), in MiB: the
    first is the output array plus any scratch, the second the scratch alone."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    before = status_kib("VmRSS")
    out = fn()
    peak, after = status_kib("VmHWM"), status_kib("VmRSS")
    del out
    return (peak - before) / 1024, (peak - after) / 1024


def same_bits(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    equal = a.view(np.uint32) == b.view(np.uint32)  # float32 only
    return bool(np.all(equal | (np.isnan(a) & np.isnan(b))))


def tile_blocks(fmt, elements):
    """`elements` elements of real ggml-quantized blocks: testdata's quantizer blocks, repeated."""
    seed = np.fromfile(ROOT / "testdata" / "gguf" / "blocks" / f"{fmt.type.lower()}.bin", dtype=np.uint8)
    seed = seed.reshape(-1, fmt.block_bytes)
    blocks = elements // fmt.block_elements
    return np.ascontiguousarray(np.resize(seed, (blocks, fmt.block_bytes)))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf-py", required=True, type=Path, help="a gguf-py checkout (its folder holding gguf/)")
    ap.add_argument("--elements", type=int, default=16 << 20, help="elements per format (default 16M)")
    ap.add_argument("--repeat", type=int, default=3, help="calls per measurement; the best counts (default 3)")
    ap.add_argument("--formats", help="comma-separated GGUF type names (default: every block format, F16, BF16)")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    ap.add_argument("--only", choices=["dequantize", "quantize"], help="one of the two parts (default: both)")
    args = ap.parse_args()

    import onnxq
    from onnxq import quants
    gguf_quants, qtypes = import_gguf_py(args.gguf_py)
    known = set()  # the types gguf-py decodes (its enum names more)
    for f in onnxq.formats():
        try:
            gguf_quants.dequantize(np.zeros((1, f.block_bytes), np.uint8), qtypes(f.ggml_type))
            known.add(f.ggml_type)
        except (NotImplementedError, ValueError):
            pass
    wanted = args.formats.upper().split(",") if args.formats else None
    formats = [f for f in onnxq.formats() if (f.format_id or f.type in ("F16", "BF16"))
               and (wanted is None or f.type in wanted)]
    if args.only != "dequantize":
        bench_quantize(args, gguf_quants, qtypes)
    if args.only == "quantize":
        return
    n = args.elements
    shape = (n // 4096, 4096)
    print(f"onnxq {onnxq.__version__} Python module vs gguf-py ({args.gguf_py}), {n:,} elements per format, "
          f"best of {args.repeat}, default threads = {os.cpu_count()} CPUs ({os.environ.get('OMP_NUM_THREADS', 'no OMP_NUM_THREADS')})")
    header = (f"{'format':8} {'gguf-py':>9} {'onnxq 1t':>9} {'x':>6} {'onnxq':>9} {'x':>6} {'same':>5} "
              f"{'np.full':>8} {'quants/full':>11} {'numpy()':>9} {'numpy/full':>10} {'peak MiB':>8} {'scratch':>7} "
              f"{'out=reused':>10} {'numpy/out':>9} {'fromfile':>9}")
    print(header)
    print("-" * len(header))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in formats:
            data = tile_blocks(fmt, n).reshape(shape[0], -1)
            path = Path(tmp) / "bench.gguf"
            gguf_tool.write_gguf(str(path), [], [[b"w", shape[::-1], fmt.ggml_type, 0, data.tobytes()]], 32)
            row = {"format": fmt.type}
            with onnxq.open(path) as m:
                t = m["w"]
                int(t.raw().sum())  # the file's pages resident before anything is timed
                ours = quants.dequantize(data, fmt.ggml_type)
                row["full"] = best(lambda: np.full(ours.shape, 1.0, np.float32), args.repeat)
                row["onnxq_1t"] = best(lambda: quants.dequantize(data, fmt.ggml_type, threads=1), args.repeat)
                row["onnxq"] = best(lambda: quants.dequantize(data, fmt.ggml_type), args.repeat)
                row["numpy"] = best(lambda: t.numpy(), args.repeat)
                reused = np.empty(t.shape, np.float32)
                t.numpy(out=reused)  # its pages faulted in once, before the timed calls
                row["numpy_out"] = best(lambda: t.numpy(out=reused), args.repeat)
                row["out_same"] = same_bits(reused, ours.reshape(t.shape))
                if fmt.type == "F16":  # numpy's own way: the bytes from the file, widened
                    row["fromfile"] = best(lambda: np.fromfile(path, np.float16, n, offset=t.offset)
                                           .astype(np.float32), args.repeat)
                del reused
                row["peak_mib"], row["peak_extra_mib"] = peak_memory_mib(lambda: t.numpy())
                row["output_mib"] = ours.nbytes / (1 << 20)
                if fmt.ggml_type in known:
                    theirs = gguf_quants.dequantize(data, qtypes(fmt.ggml_type))
                    row["same"] = same_bits(ours, theirs)
                    del theirs
                    row["gguf_py"] = best(lambda: gguf_quants.dequantize(data, qtypes(fmt.ggml_type)),
                                          max(1, args.repeat - 1))
                del ours
            path.unlink()
            rows.append(row)
            g = row.get("gguf_py")
            print(f"{fmt.type:8} "
                  + (f"{g * 1e3:8.1f}ms {row['onnxq_1t'] * 1e3:8.1f}ms {g / row['onnxq_1t']:5.1f}x "
                     f"{row['onnxq'] * 1e3:8.1f}ms {g / row['onnxq']:5.1f}x {'yes' if row['same'] else 'NO':>5} "
                     if g else f"{'(none)':>9} {row['onnxq_1t'] * 1e3:8.1f}ms {'':6} {row['onnxq'] * 1e3:8.1f}ms "
                               f"{'':6} {'':>5} ")
                  + f"{row['full'] * 1e3:7.1f}ms {row['onnxq'] / row['full']:10.2f}x "
                  f"{row['numpy'] * 1e3:8.1f}ms {row['numpy'] / row['full']:9.2f}x {row['peak_mib']:8.1f} "
                  f"{row['peak_extra_mib']:7.1f} {row['numpy_out'] * 1e3:8.1f}ms "
                  f"{row['numpy'] / row['numpy_out']:8.2f}x"
                  + (f" {row['fromfile'] * 1e3:7.1f}ms" if "fromfile" in row else ""),
                  flush=True)

    compared = [r for r in rows if "gguf_py" in r]
    summary = {}
    for label, key in (("1 thread", "onnxq_1t"), ("default threads", "onnxq")):
        ratios = [r["gguf_py"] / r[key] for r in compared]
        summary[label] = (geomean(ratios), min(ratios) if ratios else float("nan"))
    floor = [r[k] / r["full"] for r in rows for k in ("onnxq", "numpy")]
    print()
    for label, (g, lo) in summary.items():
        ok = g >= TARGETS["vs gguf-py geomean"] and lo >= TARGETS["vs gguf-py min"]
        print(f"quants.dequantize vs gguf-py, {label}: geomean {g:.1f}x, lowest {lo:.1f}x "
              f"(target >= 10x, none below 3x): {'met' if ok else 'NOT met'}")
    ok = geomean(floor) <= TARGETS["vs full geomean"] and max(floor) <= TARGETS["vs full max"]
    print(f"quants.dequantize and Tensor.numpy() vs np.full: geomean {geomean(floor):.2f}x, highest {max(floor):.2f}x "
          f"(target <= 1.5x, none above 3x): {'met' if ok else 'NOT met'}")
    worst = max(rows, key=lambda r: r["peak_mib"] - r["output_mib"])
    print(f"Tensor.numpy() peak memory: at most {worst['peak_mib'] - worst['output_mib']:.1f} MiB beyond its "
          f"{worst['output_mib']:.0f} MiB output ({worst['format']}); scratch freed on return at most "
          f"{max(r['peak_extra_mib'] for r in rows):.1f} MiB")
    speedup = [r["numpy"] / r["numpy_out"] for r in rows]
    print(f"Tensor.numpy() vs Tensor.numpy(out=reused): geomean {geomean(speedup):.2f}x, lowest "
          f"{min(speedup):.2f}x, highest {max(speedup):.2f}x (the first touch of a fresh output's pages)")
    for r in rows:
        if "fromfile" in r:
            ratio, ratio_out = r["numpy"] / r["fromfile"], r["numpy_out"] / r["fromfile"]
            ok = ratio <= TARGETS["F16 vs fromfile"]
            print(f"F16 Tensor.numpy() vs np.fromfile + astype(np.float32): {r['numpy'] * 1e3:.1f} ms vs "
                  f"{r['fromfile'] * 1e3:.1f} ms = {ratio:.2f}x (target <= 1.2x): {'met' if ok else 'NOT met'}; "
                  f"with out=reused {ratio_out:.2f}x")
    mismatched = [r["format"] for r in compared if not r["same"]]
    print("outputs equal to gguf-py's bit for bit: " + ("all" if not mismatched else "NOT " + ", ".join(mismatched)))
    unequal = [r["format"] for r in rows if not r["out_same"]]
    print("out=reused equal to numpy()'s bit for bit: " + ("all" if not unequal else "NOT " + ", ".join(unequal)))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


def bench_quantize(args, gguf_quants, qtypes):
    """quants.quantize against gguf-py's quants.quantize on the same float32 rows, per type gguf-py has."""
    from onnxq import quants
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((args.elements // 4096, 4096)) * 0.02).astype(np.float32)
    # The floor of any quantizer: reading the input once (numpy's max streams it at memory speed and
    # releases the GIL, so threads of it read at the memory's speed for that many cores).
    # Each type's calls and these two reads alternate, round after round (best_interleaved).
    threads = os.cpu_count() or 1
    shares = np.array_split(x, threads)
    pool = ThreadPoolExecutor(threads)
    read_one, read_all = (lambda: x.max()), (lambda: list(pool.map(np.max, shares)))
    print(f"quants.quantize vs gguf-py's quants.quantize, {x.size:,} float32 values per type, best of {args.repeat} "
          f"rounds (each round runs gguf-py, onnxq on 1 thread, onnxq on all threads and reading the input once "
          f"on 1 and on {threads} threads: x.max(), each thread max of its share of the rows)")
    print(f"{'type':8} {'gguf-py':>9} {'onnxq 1t':>9} {'x':>7} {'x read':>7} {'onnxq':>9} {'x':>7} {'read':>7} "
          f"{'read {}t'.format(threads):>8} {'bytes':>6}")
    wanted = args.formats.upper().split(",") if args.formats else None
    ratios, all_ratios, ceilings, all_ceilings = {}, {}, {}, {}
    for row in quants._FORMATS.values():
        ggml_type, name, format_id = row[0], row[1], row[2]
        if format_id is None or (wanted and name not in wanted):
            continue
        try:
            gguf_quants.quantize(x[:1, :256], qtypes(ggml_type))
        except (NotImplementedError, ValueError, KeyError):
            continue  # gguf-py has no quantizer for it
        theirs = gguf_quants.quantize(x, qtypes(ggml_type))
        ours = quants.quantize(x, ggml_type)
        same = theirs.shape == ours.shape and np.array_equal(theirs.view(np.uint8), ours)
        t_gguf, t_one, t_all, t_read, t_read_all = best_interleaved(
            [lambda: gguf_quants.quantize(x, qtypes(ggml_type)), lambda: quants.quantize(x, ggml_type, threads=1),
             lambda: quants.quantize(x, ggml_type), read_one, read_all], args.repeat)
        ratios[name] = t_gguf / t_one
        print(f"{name:8} {t_gguf * 1e3:8.1f}ms {t_one * 1e3:8.1f}ms {t_gguf / t_one:6.1f}x {t_one / t_read:6.2f}x "
              f"{t_all * 1e3:8.1f}ms {t_gguf / t_all:6.1f}x {t_read * 1e3:6.1f}ms {t_read_all * 1e3:7.1f}ms "
              f"{'same' if same else 'DIFFER':>6}")
        all_ratios[name] = t_gguf / t_all
        ceilings[name] = t_gguf / t_read
        all_ceilings[name] = t_gguf / t_read_all
    pool.shutdown()
    for name in ("Q8_0", "Q4_0"):
        if name in ratios:
            goal = TARGETS["quantize Q8_0 and Q4_0 vs gguf-py"]
            print(f"quants.quantize {name} vs gguf-py: {ratios[name]:.1f}x at 1 thread, {all_ratios[name]:.1f}x on all "
                  f"threads (target >= {goal:g}x): {'met' if max(ratios[name], all_ratios[name]) >= goal else 'NOT met'}; "
                  f"a quantizer that only read its input would be {ceilings[name]:.1f}x on 1 thread, "
                  f"{all_ceilings[name]:.1f}x on {threads}")


if __name__ == "__main__":
    main()
