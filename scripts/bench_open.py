"""GGUF parsing against a baseline build, each comparison measured interleaved in one run (scripts/bench-open):
  open:    BM_GgufOpenLargeMetadata (tests/bench/gguf_open_bench.cpp: 1,000 tensors and a 100,000-token
           vocabulary) of both builds, alternating, ROUNDS times; the median CPU time of each and the
           median of the rounds' ratios;
  start-up: `onnxq info` on testdata/zoo.gguf of both binaries against `cat --version` (best wall time
           of many interleaved runs), the issue-23 bound being 1.5x cat;
  check:   `onnxq check` of the large-metadata file by both binaries (best wall time).

Usage: bench_open.py BUILD BASELINE_BUILD [--rounds N]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli import best_interleaved  # noqa: E402


def open_cpu_ms(build):
    """CPU ms per open in one short run of the open benchmark of `build`."""
    out = subprocess.run([os.path.join(build, "tests", "onnxq_bench"), "--benchmark_filter=^BM_GgufOpenLargeMetadata$",
                          "--benchmark_min_time=0.3", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    run = json.loads(out)["benchmarks"][0]
    assert run["time_unit"] == "ms", run
    return run["cpu_time"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("baseline")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    builds = {"this": args.build, "baseline": args.baseline}
    for name, b in builds.items():
        for f in ("onnxq", "tests/onnxq_bench"):
            if not os.access(os.path.join(b, f), os.X_OK):
                sys.exit(f"bench-open: no {f} in {name} build {b}")

    times = {name: [] for name in builds}
    for r in range(args.rounds):
        for name in (builds if r % 2 == 0 else reversed(list(builds))):
            times[name].append(open_cpu_ms(builds[name]))
    ratios = [a / b for a, b in zip(times["this"], times["baseline"])]
    print(f"== open, {args.rounds} rounds of BM_GgufOpenLargeMetadata (CPU ms per open, median)")
    for name in builds:
        print(f"{name:9} {statistics.median(times[name]):7.3f} ms  (min {min(times[name]):.3f}, max {max(times[name]):.3f})")
    print(f"this / baseline: median of the rounds' ratios {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    zoo = os.path.join(root, "testdata", "zoo.gguf")
    cat = shutil.which("cat")
    cases = {"cat --version": [cat, "--version"]}
    for name, b in builds.items():
        cases[f"{name} info zoo.gguf"] = [os.path.join(b, "onnxq"), "info", zoo]
    best = best_interleaved({k: (v, None) for k, v in cases.items()}, 400)
    print("\n== start-up (best wall time of 400 interleaved runs)")
    for name in cases:
        print(f"{name:22} {best[name] / 1e6:6.3f} ms  {best[name] / best['cat --version']:5.2f}x cat --version")

    # The benchmark wrote its file (a clean model: check exits 0 on it).
    big = "/tmp/onnxq-bench-large-meta.gguf"
    cases = {f"{name} check": ([os.path.join(b, "onnxq"), "check", big], None) for name, b in builds.items()}
    best = best_interleaved(cases, 40)
    print(f"\n== check of the large-metadata file ({os.path.getsize(big)} bytes; best wall time of 40 interleaved runs)")
    for name in cases:
        print(f"{name:15} {best[name] / 1e6:7.3f} ms")
    print(f"this / baseline: {best['this check'] / best['baseline check']:.3f}")


if __name__ == "__main__":
    main()
