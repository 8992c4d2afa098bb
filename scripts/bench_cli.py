"""End-to-end timings for scripts/bench-cli (issue 13). Every figure is a ratio measured in this run:
the commands of one comparison run alternately, round after round, in a new random order each round,
and each keeps its fastest time. In the dequant comparisons every format's commands run in each round.

  dequant: one tensor per format, OUT_MIB of float32 output, `onnxq dequant --threads 1` and with the
           default threads, against the floor, against `cat` of a same-size file to the same directory
           (file system) and against `head -c N /dev/zero` (write only). The floor is the least work any
           dequantizer of that tensor must do, with no decoding: tests/bench/dequant_floor.c, compiled
           here with the system cc (-O3 -march=native), preads the tensor's packed bytes from the same
           .gguf (its offset and size) in 1 MiB chunks, makes as many float32 values as the tensor has
           elements (F16 and BF16 widened to float32; a block format's bytes widened, no decoding) and
           writes them to the same directory, in pieces of at most 256 KiB: the same bytes in and out as
           the dequant. x floor = floor time / onnxq time, the issue-35 target being 0.9 or more at one
           thread. The ratios against the floor and cat and default against one thread are also given as
           the median of the rounds' own ratios (each round runs both), which one lucky or unlucky run
           cannot move, the floor's and the default's with a 95% interval, next to a control
           (--threads 1 run twice); and the thread count the default chose (its -vv log);
  busy:    with --busy, the same default-against-one-thread comparison with a busy loop on every CPU
           (each run, as above, after an untimed sync);
  model:   `export` to safetensors and `dequant --all --out-dir` of a model holding every format,
           against cat of a file of the total output size;
  startup: `onnxq --version` and `onnxq info` on a small file against `cat --version`;
  rss:     peak RSS of dequant at two tensor sizes (the tensor data is read with pread into the
           reader's chunk buffers, so the RSS should not grow with the tensor).

Usage: bench_cli.py ONNXQ BLOCKS_DIR [--runs N] [--out-mib M] [--dirs DIR...] [--formats a,b] [--busy]
"""
import argparse
import atexit
import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time


def spawn_time(argv, stdout_path=None, cwd=None):
    """Wall time (ns) of one run, spawned directly (no shell); stdout to a file or /dev/null."""
    target = stdout_path or os.devnull
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC if stdout_path else os.O_WRONLY
    actions = [(os.POSIX_SPAWN_OPEN, 1, target, flags, 0o644)]
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-cli: failed: {' '.join(argv)}")
    return elapsed


def interleaved(cases, runs, before=None):
    """cases: name -> (argv, stdout_path). Runs them all `runs` times, each round in a new random
    order; name -> list of ns, one per round. In a fixed order, the second of two identical
    commands measured up to 9% faster on ext4 (the median over 30 rounds), so the order is
    shuffled (with a fixed seed: runs are repeatable). An untimed round comes first, so that every
    timed run of every comparison replaces its own earlier output (no command gets a first run
    onto a missing file)."""
    times = {name: [] for name in cases}
    for name, (argv, out) in cases.items():
        spawn_time(argv, out)
    order = list(cases)
    shuffle = random.Random(13).shuffle
    for _ in range(runs):
        shuffle(order)
        for name in order:
            if before:
                before()
            times[name].append(spawn_time(*cases[name]))
    return times


def best_interleaved(cases, runs, before=None):
    """name -> best ns of interleaved()."""
    return {name: min(t) for name, t in interleaved(cases, runs, before).items()}


def round_ratios(times, num, den):
    """times[num] / times[den] of each round (both are measured in every round)."""
    return [a / b for a, b in zip(times[num], times[den])]


def median_ratio(times, num, den):
    """The median over rounds of times[num] / times[den]."""
    return statistics.median(round_ratios(times, num, den))


def median_interval(times, num, den):
    """(median, low, high) of the rounds' ratios times[num] / times[den]: [low, high] holds the
    true median with at least 95% probability whatever the ratios' distribution (the order
    statistics j and n + 1 - j, j the largest with 1 - 2 P(Binomial(n, 1/2) < j) >= 0.95) if the
    rounds are independent. This machine's noise is not (slow stretches span rounds), so the
    dequant section runs a control, the same command twice, to show how often noise alone puts
    an interval wholly off 1.0. Below 6 rounds no interval reaches 95%: low and high are then 0
    and infinity."""
    r = sorted(round_ratios(times, num, den))
    n, j = len(r), 0
    while j + 1 <= n // 2 and 1 - 2 * sum(math.comb(n, i) for i in range(j + 1)) / 2 ** n >= 0.95:
        j += 1
    return statistics.median(r), (r[j - 1] if j else 0.0), (r[n - j] if j else math.inf)


def wholly_off_one(intervals):
    """intervals: name -> (low, high). The names whose interval lies wholly below 1.0, and those
    wholly above, each as text ("none" for none)."""
    below = [name for name, (low, high) in intervals.items() if high < 1]
    above = [name for name, (low, high) in intervals.items() if low > 1]
    return ", ".join(below) or "none", ", ".join(above) or "none"


def default_choice(argv):
    """What the default threads chose, from the -vv log of one run: "1" or the thread count."""
    err = subprocess.run(argv + ["-vv"], capture_output=True, text=True, check=True).stderr
    m = re.search(r"write: .*; (one thread|(\d+) threads)", err)
    return "?" if not m else ("1" if m.group(2) is None else m.group(2))


class BusyCpus:
    """A busy loop per CPU (child processes, stopped by their own PIDs), for the busy comparison."""

    def __enter__(self):
        self.pids = [subprocess.Popen([sys.executable, "-c", "while True: pass"]).pid for _ in range(os.cpu_count())]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        for pid in self.pids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def gguf_bytes(tensors, alignment=32, offsets=None):
    """A little-endian GGUF v3 file: tensors = [(name, ne list, ggml type, data bytes)]. Each tensor's
    offset in the file is appended to the list `offsets` when one is given."""
    def s(x):
        return struct.pack("<Q", len(x)) + x
    hdr = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 1)
    hdr += s(b"general.architecture") + struct.pack("<I", 8) + s(b"bench")
    offset, infos, blobs = 0, b"", []
    for name, ne, ggml_type, data in tensors:
        offset += -offset % alignment
        infos += s(name.encode()) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
        infos += struct.pack("<IQ", ggml_type, offset)
        blobs.append((offset, data))
        offset += len(data)
    out = bytearray(hdr + infos)
    out += b"\0" * (-len(out) % alignment)
    base = len(out)
    out += b"\0" * offset
    for off, data in blobs:
        out[base + off:base + off + len(data)] = data
        if offsets is not None:
            offsets.append(base + off)
    return bytes(out)


def tiled(blocks, nbytes):
    return (blocks * (nbytes // len(blocks) + 1))[:nbytes]


FLOOR_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "bench", "dequant_floor.c")


def build_floor():
    """Compiles tests/bench/dequant_floor.c with the system cc ($CC, else cc) into a temporary folder,
    removed at exit; the binary's path."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        sys.exit("bench-cli: no C compiler (cc or $CC) to build the floor, tests/bench/dequant_floor.c")
    tmp = tempfile.mkdtemp(prefix="onnxq-bench-floor.")
    atexit.register(shutil.rmtree, tmp, True)
    exe = os.path.join(tmp, "dequant_floor")
    r = subprocess.run([cc, "-O3", "-march=native", "-o", exe, os.path.normpath(FLOOR_SOURCE)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench-cli: building the floor failed: {r.stderr.strip().splitlines()[-1] if r.stderr else cc}")
    return exe


def lscpu_summary():
    info = {}
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            k, _, v = line.partition(":")
            info[k.strip()] = v.strip()
    except OSError:
        pass
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxq")
    ap.add_argument("blocks_dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out-mib", type=int, default=64)
    ap.add_argument("--dirs", nargs="+", default=["/dev/shm", "/work"])
    ap.add_argument("--formats", default="")
    ap.add_argument("--busy", action="store_true")
    args = ap.parse_args()
    onnxq = os.path.abspath(args.onnxq)
    cat, head = shutil.which("cat"), shutil.which("head")
    floor = build_floor()

    formats = json.loads(subprocess.run([onnxq, "formats", "--json"], capture_output=True, check=True).stdout)
    rows = [f for f in formats if f["block_elements"] > 1 or f["ggml_name"] in ("f16", "bf16")]
    if args.formats:
        wanted = args.formats.lower().split(",")
        rows = [f for f in rows if f["ggml_name"].lower() in wanted]
    cpu = lscpu_summary()
    isa = subprocess.run([onnxq, "formats", "--isa"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"bench-cli {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; CPU {cpu.get('Model name', '?')}, "
          f"{os.cpu_count()} CPUs, L2 {cpu.get('L2 cache', '?')}, L3 {cpu.get('L3 cache', '?')}; {isa}")
    print(f"best of {args.runs} interleaved runs; ratio = baseline time / onnxq time (1.00 = as fast as the baseline); "
          f"floor = pread the tensor's bytes in 1 MiB chunks, widen to float32 without decoding, write the same "
          f"bytes as the dequant (tests/bench/dequant_floor.c, cc -O3 -march=native)")

    out_bytes = args.out_mib << 20
    elements = out_bytes // 4
    for d in args.dirs:
        fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", d], capture_output=True, text=True).stdout.splitlines()[0]
        work = tempfile.mkdtemp(prefix="onnxq-bench-cli.", dir=d)
        try:
            same = os.path.join(work, "same-size.bin")
            with open(same, "wb") as f:
                f.write(os.urandom(1 << 20) * args.out_mib)
            out = os.path.join(work, "out")
            print(f"\n== dequant to {d} ({fs}): {args.out_mib} MiB of float32 per tensor")
            print(f"{'format':9} {'1 thread':>9} {'default':>9} {'med 1t':>7} {'med def':>7} {'1t/zero':>8} "
                  f"{'def/zero':>8} {'def/1t':>7} {'median [95%]':>20} {'thr':>3} {'1t/floor':>8} {'def/floor':>9} "
                  f"{'floor median [95%]':>20}   (x cat: cat time / onnxq "
                  f"time, best times; med: median of the rounds' ratios against cat; /zero: head -c N /dev/zero; "
                  f"def/1t: best times; median: of the rounds' ratios, with its 95% interval; thr: the default's "
                  f"threads; /floor: x floor, floor time / onnxq time, best times; floor median: of the rounds' "
                  f"ratios floor / 1 thread, with its 95% interval)")
            worst = {"1t": 9, "def": 9, "med1t": 9, "meddef": 9, "def1": 9, "median": 9, "floor1t": 9, "floordef": 9,
                     "floormed": 9}
            floor_low = []  # formats below the issue-35 target, 0.9x floor at one thread (median of rounds)
            names = [f["ggml_name"].lower() for f in rows]
            # Per format, the 95% interval of default / 1 thread and of --threads 1 against itself.
            default_intervals, control_intervals = {}, {}
            model_tensors, model_out = [], 0
            # Every format's commands run in each round, so that a slow stretch of this machine
            # (seconds long) costs one round of many formats, not every round of one. Each command
            # replaces its own earlier output (as `cat > out` truncates it), and every run starts
            # with no dirty pages (sync, untimed), so that one command's write-back is not charged
            # to the next.
            cases = {}
            for name, f in zip(names, rows):
                be = f["block_elements"]
                blocks = open(os.path.join(args.blocks_dir, name + ".bin"), "rb").read()
                n = elements // be * be
                path = os.path.join(work, name + ".gguf")
                offsets = []
                with open(path, "wb") as g:
                    g.write(gguf_bytes([("t", [4096, n // 4096], f["ggml_type"], tiled(blocks, n // be * f["block_bytes"]))],
                                       offsets=offsets))
                with open(path, "rb") as g:
                    g.read()  # in the page cache, as the same-size file is
                # A smaller copy of every format for the whole-model runs.
                m = (n // 16) // 4096 * 4096
                model_tensors.append((name, [4096, m // 4096], f["ggml_type"], tiled(blocks, m // be * f["block_bytes"])))
                model_out += m * 4
                dequant = [onnxq, "dequant", path, "--tensor", "t", "--format", "raw", "-o"]
                cases[name, "cat"] = ([cat, same], out + ".cat")
                cases[name, "zero"] = ([head, "-c", str(n * 4), "/dev/zero"], out + ".zero")
                mode = name if name in ("f16", "bf16") else "blocks"
                cases[name, "floor"] = ([floor, path, str(offsets[0]), str(n // be * f["block_bytes"]), mode, str(be),
                                         str(f["block_bytes"]), out + ".floor"], None)
                spawn_time(*cases[name, "floor"])  # untimed: the floor writes as many bytes as the dequant
                if os.path.getsize(out + ".floor") != n * 4:
                    sys.exit(f"bench-cli: the floor wrote {os.path.getsize(out + '.floor')} bytes for {name}, not {n * 4}")
                cases[name, "1t"] = (dequant + [out + ".1t", "--threads", "1"], None)
                cases[name, "1t again"] = (dequant + [out + ".1t-again", "--threads", "1"], None)
                cases[name, "def"] = (dequant + [out + ".def"], None)
            times = interleaved(cases, args.runs, before=os.sync)
            for name in names:
                t = {cmd: times[name, cmd] for cmd in ("cat", "zero", "1t", "def", "floor")}
                b = {cmd: min(v) for cmd, v in t.items()}
                r1, rd = b["cat"] / b["1t"], b["cat"] / b["def"]
                z1, zd = b["zero"] / b["1t"], b["zero"] / b["def"]
                med, lo, hi = median_interval(t, "1t", "def")
                default_intervals[name] = lo, hi
                control_intervals[name] = median_interval(times, (name, "1t"), (name, "1t again"))[1:]
                m1, md = median_ratio(t, "cat", "1t"), median_ratio(t, "cat", "def")
                worst["1t"], worst["def"] = min(worst["1t"], r1), min(worst["def"], rd)
                worst["med1t"], worst["meddef"] = min(worst["med1t"], m1), min(worst["meddef"], md)
                worst["def1"], worst["median"] = min(worst["def1"], b["1t"] / b["def"]), min(worst["median"], med)
                f1, fd = b["floor"] / b["1t"], b["floor"] / b["def"]
                fmed, flo, fhi = median_interval(t, "floor", "1t")
                worst["floor1t"], worst["floordef"] = min(worst["floor1t"], f1), min(worst["floordef"], fd)
                worst["floormed"] = min(worst["floormed"], fmed)
                if fmed < 0.9:
                    floor_low.append(f"{name} {fmed:.2f}")
                print(f"{name:9} {r1:8.2f}x {rd:8.2f}x {m1:6.2f}x {md:6.2f}x {z1:7.2f}x {zd:7.2f}x"
                      f" {b['1t'] / b['def']:6.2f}x {med:6.2f}x [{lo:.2f}, {hi:.2f}] "
                      f"{default_choice(cases[name, 'def'][0]):>3} {f1:7.2f}x {fd:8.2f}x {fmed:6.2f}x [{flo:.2f}, {fhi:.2f}]"
                      f"   cat {b['cat'] / 1e6:.1f} ms, floor {b['floor'] / 1e6:.1f} ms")
            print(f"lowest: 1 thread {worst['1t']:.2f}x cat, default {worst['def']:.2f}x cat (best times); "
                  f"1 thread {worst['med1t']:.2f}x cat, default {worst['meddef']:.2f}x cat (median of rounds); "
                  f"default / 1 thread {worst['def1']:.2f}x (best times), {worst['median']:.2f}x (median of rounds)")
            print(f"floor: 1 thread {worst['floor1t']:.2f}x, default {worst['floordef']:.2f}x (best times); 1 thread "
                  f"{worst['floormed']:.2f}x (median of rounds); below the 0.9x target at 1 thread (median of rounds): "
                  f"{', '.join(floor_low) or 'none'}")
            below, above = wholly_off_one(default_intervals)
            print(f"default / 1 thread, 95% interval of the median wholly below 1.0 (slower): {below}; "
                  f"wholly above 1.0 (faster): {above}")
            below, above = wholly_off_one(control_intervals)
            print(f"control, --threads 1 against itself (the same code, run twice in each round): wholly below "
                  f"1.0: {below}; wholly above 1.0: {above}")
            if args.busy:
                print(f"\n== dequant to {d} ({fs}) with a busy loop on each of the {os.cpu_count()} CPUs: default "
                      f"against one thread")
                print(f"{'format':9} {'def/1t':>7} {'median [95%]':>20} {'thr':>3}")
                pairs = {key: case for key, case in cases.items() if key[1] in ("1t", "def")}
                with BusyCpus():
                    times = interleaved(pairs, args.runs, before=os.sync)
                    for name in names:
                        t = {cmd: times[name, cmd] for cmd in ("1t", "def")}
                        med, lo, hi = median_interval(t, "1t", "def")
                        print(f"{name:9} {min(t['1t']) / min(t['def']):6.2f}x {med:6.2f}x [{lo:.2f}, {hi:.2f}] "
                              f"{default_choice(cases[name, 'def'][0]):>3}")
            for name in names:
                os.unlink(os.path.join(work, name + ".gguf"))

            model = os.path.join(work, "model.gguf")
            with open(model, "wb") as g:
                g.write(gguf_bytes(model_tensors))
            with open(same, "wb") as g:
                g.write(os.urandom(1 << 20) * (model_out >> 20) + os.urandom(model_out & ((1 << 20) - 1)))
            outdir = os.path.join(work, "dq")
            os.mkdir(outdir)
            os.mkdir(outdir + "1")
            cases = {
                "cat": ([cat, same], out + ".cat"),
                "export 1t": ([onnxq, "export", model, "-o", out + ".e1.safetensors", "--dtype", "f32", "--threads", "1"],
                              None),
                "export": ([onnxq, "export", model, "-o", out + ".e.safetensors", "--dtype", "f32"], None),
                "dequant --all 1t": ([onnxq, "dequant", model, "--all", "--format", "raw", "--out-dir", outdir + "1",
                                      "--threads", "1"], None),
                "dequant --all": ([onnxq, "dequant", model, "--all", "--format", "raw", "--out-dir", outdir], None),
            }
            b = best_interleaved(cases, args.runs, before=os.sync)
            print(f"\n== whole model to {d} ({fs}): {len(model_tensors)} tensors, {model_out / 2**20:.0f} MiB of float32")
            for name in cases:
                if name != "cat":
                    print(f"{name:18} {b['cat'] / b[name]:5.2f}x cat   ({b[name] / 1e6:.1f} ms, cat {b['cat'] / 1e6:.1f} ms)")
        finally:
            shutil.rmtree(work)

    # Start-up: many short runs.
    small = os.path.join(os.path.dirname(os.path.abspath(args.blocks_dir)), "..", "zoo.gguf")
    cases = {
        "cat --version": ([cat, "--version"], None),
        "onnxq --version": ([onnxq, "--version"], None),
        "onnxq info zoo.gguf": ([onnxq, "info", os.path.normpath(small)], None),
        "onnxq list zoo.gguf": ([onnxq, "list", os.path.normpath(small)], None),
    }
    b = best_interleaved(cases, max(50, args.runs * 40))
    print("\n== start-up (best wall time of many runs)")
    for name in cases:
        print(f"{name:22} {b[name] / 1e6:6.3f} ms  {b[name] / b['cat --version']:5.2f}x cat --version")

    # Peak RSS of the child: two tensor sizes, the larger 4x the smaller.
    print("\n== peak RSS of onnxq dequant (q4_0, default threads)")
    work = tempfile.mkdtemp(prefix="onnxq-bench-cli.", dir=args.dirs[0])
    try:
        blocks = open(os.path.join(args.blocks_dir, "q4_0.bin"), "rb").read()
        for mib in (args.out_mib // 4, args.out_mib):
            n = (mib << 20) // 4
            path = os.path.join(work, "r.gguf")
            with open(path, "wb") as g:
                g.write(gguf_bytes([("t", [4096, n // 4096], 2, tiled(blocks, n // 32 * 18))]))
            # GNU time forks onnxq from its own small process: the peak is onnxq's, not this script's.
            argv = ["/usr/bin/time", "-f", "%M", onnxq, "dequant", path, "--tensor", "t", "--format", "raw", "-o",
                    os.path.join(work, "o")]
            kib = int(subprocess.run(argv, capture_output=True, text=True, check=True).stderr.split()[-1])
            packed = n // 32 * 18 / 2**20
            print(f"{mib:5d} MiB output ({packed:.1f} MiB packed input, read with pread): max RSS {kib / 1024:.1f} MiB")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
