"""Start-up of two onnxq builds side by side (scripts/bench-startup runs it): `--version` and `info`
of the small zoo model, each build against the other and against `cat --version`, interleaved in
one run (bench_cli.py's method: best wall time of many runs, each round in a shuffled order).
For a change to how the tool is linked or started, the build before against the build after.

  bench_startup.py ONNXQ_BEFORE ONNXQ_AFTER [--runs N]
"""

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli import best_interleaved  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--runs", type=int, default=400)
    args = ap.parse_args()
    zoo = os.path.join(ROOT, "testdata", "zoo.gguf")
    cases = {"cat --version": ([shutil.which("cat"), "--version"], None)}
    for label, binary in (("before", args.before), ("after", args.after)):
        binary = os.path.abspath(binary)
        cases[f"{label}: onnxq --version"] = ([binary, "--version"], None)
        cases[f"{label}: onnxq info zoo.gguf"] = ([binary, "info", zoo], None)
    best = best_interleaved(cases, args.runs)
    print(f"start-up, best of {args.runs} interleaved runs; before = {args.before}, after = {args.after}")
    for name, ns in best.items():
        print(f"{name:28} {ns / 1e6:6.3f} ms  {ns / best['cat --version']:5.2f}x cat --version")
    for what in ("onnxq --version", "onnxq info zoo.gguf"):
        delta = (best[f"after: {what}"] - best[f"before: {what}"]) / 1e6
        print(f"after - before, {what}: {delta:+.3f} ms")


if __name__ == "__main__":
    main()
