"""Write timings for scripts/bench-write: `onnxq edit` and `onnxq convert-endian` of a generated model
against `cp` of the same file to the same directory, on each of DIRS, and `onnxq edit` against
`cp --reflink=always` on an XFS file system with reflink (an image on /dev/shm, on a loop device);
optionally llama.cpp's gguf-py scripts doing the same edit and conversion; `onnxq split` and
`onnxq merge` against cp. The commands of one directory run alternately,
round after round, each round in a new order; each keeps the median of its rounds. Needs root (the
XFS mount). Everything it makes (files, mount, loop device, image) is removed on exit.

Usage: bench_write.py ONNXQ [--size 2G] [--runs N] [--dirs DIR...] [--gguf-py DIR]
"""
import argparse
import glob
import os
import random
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

# The model: F32, F16 and Q8_0 tensors (Q8_0 a block format with a binary16 scale per block), the
# types gguf-py's gguf_convert_endian.py converts, so that one file serves every comparison.
TYPES = [("f32", 0, 1, 4), ("f16", 1, 1, 2), ("q8_0", 8, 32, 34)]  # name, ggml type, block elements, bytes
ROW = 4096  # elements per row


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.upper().rstrip("IB") if text.upper().endswith(("IB", "B")) and len(text) > 1 else text.upper()
    unit = t[-1] if t[-1] in units else ""
    return int(float(t[:-1] if unit else t) * units[unit])


def write_model(path, size):
    """A little-endian GGUF v3 file of about `size` bytes: two tensors of each type, the data random."""
    def s(x):
        return struct.pack("<Q", len(x)) + x
    n = 2 * len(TYPES)
    tensors, offset = [], 0
    for i in range(n):
        name, ggml_type, block, nbytes = TYPES[i % len(TYPES)]
        row_bytes = ROW // block * nbytes
        rows = max(1, size // n // row_bytes)
        offset += -offset % 32
        tensors.append((f"blk.{i // len(TYPES)}.{name}.weight".encode(), ggml_type, rows, offset, rows * row_bytes))
        offset += rows * row_bytes
    head = b"GGUF" + struct.pack("<IQQ", 3, n, 2)
    head += s(b"general.architecture") + struct.pack("<I", 8) + s(b"llama")
    head += s(b"general.name") + struct.pack("<I", 8) + s(b"bench")
    for name, ggml_type, rows, off, _ in tensors:
        head += s(name) + struct.pack("<IQQIQ", 2, ROW, rows, ggml_type, off)
    head += b"\0" * (-len(head) % 32)
    rng = np.random.default_rng(13)
    with open(path, "wb") as f:
        f.write(head)
        at = 0
        for _, _, _, off, nbytes in tensors:
            f.write(b"\0" * (off - at))
            left = nbytes
            while left:
                k = min(left, 64 << 20)
                f.write(rng.integers(0, 256, k, dtype=np.uint8).tobytes())
                left -= k
            at = off + nbytes
        f.write(b"\0" * (-(len(head) + at) % 32))


def spawn_time(argv, stdin_text=None, env=None):
    """Wall time (ns) of one run; stdout and stderr to /dev/null, stdin from a pipe when given."""
    start = time.perf_counter_ns()
    p = subprocess.run(argv, input=stdin_text, text=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    elapsed = time.perf_counter_ns() - start
    if p.returncode != 0:
        sys.exit(f"bench-write: failed ({p.returncode}): {' '.join(argv)}\n{p.stderr[-2000:]}")
    return elapsed


def interleaved(cases, runs):
    """cases: name -> (argv, prepare or None, stdin or None, env or None). One untimed round, then
    `runs` rounds in a new (seeded) random order each; name -> median ns. `prepare` runs untimed
    before each run (it removes the output of the run before, or makes a fresh copy for a command
    that works in place), then an untimed sync."""
    times = {name: [] for name in cases}
    order = list(cases)
    shuffle = random.Random(13).shuffle
    for r in range(runs + 1):
        shuffle(order)
        for name in order:
            argv, prepare, stdin, env = cases[name]
            if prepare:
                prepare()
            subprocess.run(["sync"], check=True)
            t = spawn_time(argv, stdin, env)
            if r:
                times[name].append(t)
    return {name: statistics.median(t) for name, t in times.items()}


def removing(path):
    """A `prepare` that removes the file `path`, or empties the directory `path`: each run writes
    its output anew, as a user's first run does, not over an output of the same size."""
    def prepare():
        if os.path.isdir(path):
            for name in os.listdir(path):
                os.remove(os.path.join(path, name))
        elif os.path.exists(path):
            os.remove(path)
    return prepare


def fs_type(d):
    return subprocess.run(["df", "--output=fstype", d], capture_output=True, text=True).stdout.split()[-1]


class XfsImage:
    """An XFS file system with reflink in a sparse image on /dev/shm, on a loop device, mounted."""

    def __init__(self, size):
        self.image = tempfile.mktemp(prefix="onnxq-bench-xfs.", dir="/dev/shm")
        self.mount = tempfile.mkdtemp(prefix="onnxq-bench-xfs.")
        self.loop = None
        self.mounted = False
        with open(self.image, "wb") as f:
            f.truncate(size)
        subprocess.run(["mkfs.xfs", "-q", "-m", "reflink=1", self.image], check=True)
        self.loop = subprocess.run(["losetup", "--find", "--show", self.image], check=True, capture_output=True,
                                   text=True).stdout.strip()
        subprocess.run(["mount", "-t", "xfs", self.loop, self.mount], check=True)
        self.mounted = True

    def close(self):
        if self.mounted:
            subprocess.run(["umount", "-l", self.mount])
            self.mounted = False
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop])
            self.loop = None
        for p in (self.image,):
            if os.path.exists(p):
                os.remove(p)
        if os.path.isdir(self.mount):
            os.rmdir(self.mount)


def verdict(ok):
    return "pass" if ok else "FAIL"


def main():
    ap = argparse.ArgumentParser(description="onnxq edit / convert-endian / split / merge against cp (needs root)")
    ap.add_argument("onnxq")
    ap.add_argument("--size", default="2G", help="model size (default 2G)")
    ap.add_argument("--runs", type=int, default=5, help="timed rounds per directory (median of them)")
    ap.add_argument("--dirs", nargs="+", default=["/dev/shm", "/work"])
    ap.add_argument("--gguf-py", default="", help="llama.cpp's gguf-py folder: also time its scripts")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench-write: needs root (it mounts an XFS image on a loop device)")
    size = parse_size(args.size)
    onnxq = os.path.abspath(args.onnxq)

    made, xfs = [], None

    def cleanup(*_):
        for d in made:
            shutil.rmtree(d, ignore_errors=True)
        if xfs:
            xfs.close()

    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    signal.signal(signal.SIGINT, lambda *a: sys.exit(130))
    try:
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
        print(f"bench-write {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; CPU {cpu}, {os.cpu_count()} CPUs; "
              f"load average {open('/proc/loadavg').read().split()[0]} at the start")
        print(f"median of {args.runs} interleaved rounds; x = onnxq time / other time (below 1: onnxq faster)")
        xfs = XfsImage(3 * size + (1 << 30))
        dirs = [(d, fs_type(d)) for d in args.dirs] + [(xfs.mount, "xfs-reflink")]
        gpy_env = None
        if args.gguf_py:
            gpy_env = dict(os.environ, PYTHONPATH=os.path.abspath(args.gguf_py))
            gpy = os.path.join(os.path.abspath(args.gguf_py), "gguf", "scripts")
        src = None
        targets = []
        for d, fs in dirs:
            work = tempfile.mkdtemp(prefix="onnxq-bench-write.", dir=d)
            made.append(work)
            model = os.path.join(work, "model.gguf")
            if src is None:  # generated once, kept beside the first directory's work until the end
                keep = tempfile.mkdtemp(prefix="onnxq-bench-write-model.", dir=d)
                made.append(keep)
                src = os.path.join(keep, "model.gguf")
                write_model(src, size)
            shutil.copyfile(src, model)
            reflink = d == xfs.mount
            out = lambda name: os.path.join(work, name)
            cases = {
                "edit": ([onnxq, "edit", model, "-o", out("edit.gguf"), "--set", "general.name=edited"],
                         removing(out("edit.gguf")), None, None),
                "cp": (["cp", "--reflink=always" if reflink else "--reflink=never", model, out("cp.gguf")],
                       removing(out("cp.gguf")), None, None),
            }
            if gpy_env:
                cases["gguf-py new_metadata"] = (["/usr/bin/python3", os.path.join(gpy, "gguf_new_metadata.py"),
                                                  model, out("gpy-edit.gguf"), "--general-name", "edited",
                                                  "--force"], removing(out("gpy-edit.gguf")), None, gpy_env)
            if not reflink:
                cases["convert-endian"] = ([onnxq, "convert-endian", model, "-o", out("big.gguf"), "--to", "big"],
                                           removing(out("big.gguf")), None, None)
                os.makedirs(out("split"), exist_ok=True)
                cases["split"] = ([onnxq, "split", model, "-o", out("split/part"), "--max-size",
                                   f"{max(1, size // 4 >> 20)}M"], removing(out("split")), None, None)
                if gpy_env:
                    gcopy = out("gpy-big.gguf")
                    cases["gguf-py convert_endian"] = (
                        ["/usr/bin/python3", os.path.join(gpy, "gguf_convert_endian.py"), gcopy, "big"],
                        lambda m=model, g=gcopy: shutil.copyfile(m, g), "YES\n", gpy_env)
            t = interleaved(cases, args.runs)
            mib = os.path.getsize(model) / 2**20
            print(f"\n== {d} ({fs}{', an image on /dev/shm' if reflink else ''}): model {mib:.0f} MiB")
            print(f"{'command':16} {'median':>10}  {'against':24} {'median':>10} {'x':>7}  target")

            def row(name, base, target=None, limit=None):
                x = t[name] / t[base]
                tgt = ""
                if limit is not None:
                    ok = x <= limit
                    tgt = f"<= {limit:g}x {base}: {verdict(ok)}"
                    targets.append((f"{name} on {fs}", x, f"<= {limit:g}x {base}", ok))
                print(f"{name:16} {t[name] / 1e6:8.1f} ms  {base:24} {t[base] / 1e6:8.1f} ms {x:6.3f}x  {tgt}")

            def faster_row(mine, theirs):
                row(mine, theirs)
                faster = t[theirs] / t[mine]
                print(f"{'':16} onnxq {faster:.1f} times faster than {theirs}; target >= 20: {verdict(faster >= 20)}")
                targets.append((f"{mine} on {fs}, times faster than {theirs}", faster, ">= 20", faster >= 20))

            if reflink:
                row("edit", "cp")
                if gpy_env:
                    faster_row("edit", "gguf-py new_metadata")
                ok = t["edit"] / 1e6 <= 50
                print(f"edit: {t['edit'] / 1e6:.1f} ms for {mib:.0f} MiB; target <= 50 ms (for 2 GiB): {verdict(ok)}")
                targets.append((f"edit on {fs}", t["edit"] / 1e6, "<= 50 ms (2 GiB)", ok))
            else:
                row("edit", "cp", limit=1.2)
                row("convert-endian", "cp", limit=2)
                if gpy_env:
                    for mine, theirs in (("edit", "gguf-py new_metadata"), ("convert-endian", "gguf-py convert_endian")):
                        faster_row(mine, theirs)
                row("split", "cp")
                first = sorted(glob.glob(out("split/part*")))[0]
                merge = {"merge": ([onnxq, "merge", first, "-o", out("merged.gguf")], removing(out("merged.gguf")),
                                   None, None),
                         "cp": (["cp", "--reflink=never", model, out("cp.gguf")], removing(out("cp.gguf")), None, None)}
                tm = interleaved(merge, args.runs)
                t.update(merge=tm["merge"], cp=tm["cp"])
                row("merge", "cp")
            shutil.rmtree(work, ignore_errors=True)
        print("\nTargets:")
        for name, x, target, ok in targets:
            value = f"{x:.1f} ms" if "ms" in target else f"{x:.2f}x"
            print(f"  {name:62} {value:>9}  {target:18} {verdict(ok)}")
        print(f"load average {open('/proc/loadavg').read().split()[0]} at the end")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
