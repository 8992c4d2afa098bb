#!/usr/bin/env python3
"""scripts/bench --arm: guest instructions per decoded element, each decoder path against the scalar
reference, for every block format, on the AArch64 cross build run under qemu-aarch64.

Emulation says nothing about time, so this counts instructions instead: QEMU's TCG plugin
tests/bench/emulated/insn_count.c adds up the instructions of every translation block the guest
executes. onnxq_decode_count (tests/bench/emulated/decode_count.cpp) decodes BLOCKS random blocks
of a format to float32 on one thread, REPEATS times; a run with REPEATS = 0 (the same start, the
same one-block warm-up decode) is subtracted, so the count is the decodes' alone.

Usage: bench_arm.py BUILD_DIR PLUGIN [--elements N] [--repeats R] [--formats q4_0,q4_k]"""
import argparse
import datetime
import math
import re
import subprocess
import sys

QEMU = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]


def guest_instructions(plugin, program, *args):
    run = subprocess.run(QEMU + ["-plugin", plugin, program, *map(str, args)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"bench_arm.py: {program} {' '.join(map(str, args))} failed: {run.stderr.strip()}")
    m = re.search(r"^guest-instructions (\d+)$", run.stderr, re.M)
    if not m:
        sys.exit(f"bench_arm.py: the plugin printed no count: {run.stderr.strip()}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("plugin")
    ap.add_argument("--elements", type=int, default=1 << 16, help="elements per decode (default 65536)")
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--formats", default="", help="comma-separated, e.g. q4_0,q4_k (default: all 27)")
    a = ap.parse_args()
    program = f"{a.build_dir}/tests/onnxq_decode_count"
    listing = subprocess.run(QEMU + [program, "--list"], capture_output=True, text=True, check=True).stdout
    paths = re.findall(r"^path (\S+)$", listing, re.M)
    formats = [(f, int(n)) for f, n in re.findall(r"^format gguf:(\S+) (\d+)$", listing, re.M)]
    if a.formats:
        formats = [(f, n) for f, n in formats if f in a.formats.split(",")]
    if a.elements % 256:
        sys.exit("bench_arm.py: --elements must be a multiple of 256 (the largest block)")
    qemu = subprocess.run([QEMU[0], "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"scripts/bench --arm {when}, {qemu}: guest instructions per element, float32 output, 1 thread, "
          f"{a.elements} elements x {a.repeats} decodes (counted by a QEMU plugin; not a time)")
    others = paths[1:]
    print(f"{'format':8} " + " ".join(f"{p:>10}" for p in paths) + "".join(f" {'scalar/' + p:>13}" for p in others))
    ratios = {p: [] for p in others}
    for fmt, block_elements in formats:
        blocks = a.elements // block_elements
        counts = {}
        for p in paths:
            base = guest_instructions(a.plugin, program, f"gguf:{fmt}", p, blocks, 0)
            full = guest_instructions(a.plugin, program, f"gguf:{fmt}", p, blocks, a.repeats)
            counts[p] = (full - base) / (a.repeats * a.elements)
        line = f"{fmt:8} " + " ".join(f"{counts[p]:10.2f}" for p in paths)
        for p in others:
            r = counts["scalar"] / counts[p]
            ratios[p].append(r)
            line += f" {r:13.2f}"
        print(line)
    for p in others:
        geo = math.exp(sum(map(math.log, ratios[p])) / len(ratios[p]))
        print(f"geomean scalar/{p}: {geo:.2f}x fewer guest instructions ({min(ratios[p]):.2f}-{max(ratios[p]):.2f})")
    if not others:
        print("this build has no SIMD path for AArch64 (no lib/src/simd/neon/): only the scalar counts")


if __name__ == "__main__":
    main()
