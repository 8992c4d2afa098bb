"""The evidence behind the streaming decoder's thread choice (lib/src/stream/thread_choice.cpp):
for one tensor per format (OUT_MIB of float32 output, the tensors of scripts/bench-cli), `onnxq
dequant` with --threads 1, --threads 2 and the default, interleaved round after round in a random
order (bench_cli.interleaved), each ratio the median of the rounds' own ratios with its 95%
interval; then the default's probe as its -vv log gives it (the least read, decode and write time
of a chunk, microseconds) and what it chose. ONNXQ_ISA in the environment picks the kernels
(scalar, avx2 ...), to see the choice where decoding costs more.

Usage: bench_threads.py ONNXQ BLOCKS_DIR [--runs N] [--out-mib M] [--dirs DIR...] [--formats a,b]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile

import bench_cli


def probe_of(argv):
    """(read, decode, write, choice) from the -vv log of one default run."""
    err = subprocess.run(argv + ["-vv"], capture_output=True, text=True, check=True).stderr
    m = re.search(r"took at least (\d+) us to read, (\d+) us to decode and (\d+) us to write.*; "
                  r"(one thread|\d+ threads)", err)
    return m.groups() if m else ("?", "?", "?", "?")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxq")
    ap.add_argument("blocks_dir")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--out-mib", type=int, default=64)
    ap.add_argument("--dirs", nargs="+", default=["/dev/shm", "/work"])
    ap.add_argument("--formats", default="")
    args = ap.parse_args()
    onnxq = os.path.abspath(args.onnxq)
    formats = json.loads(subprocess.run([onnxq, "formats", "--json"], capture_output=True, check=True).stdout)
    rows = [f for f in formats if f["block_elements"] > 1 or f["ggml_name"] in ("f16", "bf16")]
    if args.formats:
        rows = [f for f in rows if f["ggml_name"].lower() in args.formats.lower().split(",")]
    isa = subprocess.run([onnxq, "formats", "--isa"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"bench-threads: {os.cpu_count()} CPUs; {isa}; {args.runs} interleaved rounds; ratio = 1-thread time / "
          f"other time (above 1.0: faster than one thread), median of the rounds [95% interval]")
    elements = (args.out_mib << 20) // 4
    for d in args.dirs:
        fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", d], capture_output=True,
                            text=True).stdout.splitlines()[0]
        work = tempfile.mkdtemp(prefix="onnxq-bench-threads.", dir=d)
        try:
            cases = {}
            for f in rows:
                name, be = f["ggml_name"].lower(), f["block_elements"]
                blocks = open(os.path.join(args.blocks_dir, name + ".bin"), "rb").read()
                n = elements // be * be
                path = os.path.join(work, name + ".gguf")
                with open(path, "wb") as g:
                    g.write(bench_cli.gguf_bytes([("t", [4096, n // 4096], f["ggml_type"],
                                                   bench_cli.tiled(blocks, n // be * f["block_bytes"]))]))
                dequant = [onnxq, "dequant", path, "--tensor", "t", "--format", "raw", "-o"]
                for threads in ("1", "2"):
                    cases[name, threads] = (dequant + [os.path.join(work, "out." + threads), "--threads", threads], None)
                cases[name, "def"] = (dequant + [os.path.join(work, "out.def")], None)
            times = bench_cli.interleaved(cases, args.runs, before=os.sync)
            print(f"\n== dequant to {d} ({fs}): {args.out_mib} MiB of float32 per tensor")
            print(f"{'format':9} {'1 thread':>9} {'2 threads':>20} {'default':>20}  probe read/decode/write us  chose")
            for f in rows:
                name = f["ggml_name"].lower()
                t = {k: times[name, k] for k in ("1", "2", "def")}
                two, default = bench_cli.median_interval(t, "1", "2"), bench_cli.median_interval(t, "1", "def")
                read, decode, write, chose = probe_of(cases[name, "def"][0])
                print(f"{name:9} {statistics.median(t['1']) / 1e6:7.1f}ms "
                      f"{two[0]:5.2f}x [{two[1]:.2f}, {two[2]:.2f}] {default[0]:5.2f}x [{default[1]:.2f}, {default[2]:.2f}]"
                      f"  {read:>5} / {decode:>5} / {write:>5}         {chose}")
        finally:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
