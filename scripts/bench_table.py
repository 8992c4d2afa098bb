#!/usr/bin/env python3
"""Turns `onnxq_bench --benchmark_format=json` output of the decode/ benchmarks (simd_bench.cpp), one
file per run, into the compact table of the README, plus the issue-6 target summary (P1-P3)."""
import json
import math
import sys


def main(paths):
    # One or more runs (scripts/bench --rounds): each case keeps its fastest run, with that run's
    # own fill (x_memset) beside it.
    rows = {}
    for path in paths:
        for b in json.load(open(path))["benchmarks"]:
            parts = b["name"].split("/")
            if parts[0] != "decode" or "x_memset" not in b:
                continue
            key = tuple(parts[1:6])  # format, out, isa, size, threads
            if key not in rows or b["ns_per_elem"] < rows[key]["ns_per_elem"]:
                rows[key] = b
    formats = list(dict.fromkeys(k[0] for k in rows))
    isas = [i for i in ("scalar", "avx2", "avx512", "avx512vbmi") if any(k[2] == i for k in rows)]
    best = isas[-1]

    print(f"{'format':9} {'out':4} {'size':12} {'thr':3} {'path':10} {'ns/elem':>8} {'GB/s':>7} {'x memset':>9} {'x scalar':>9}")
    for (fmt, out, isa, size, threads), b in rows.items():
        sc = rows.get((fmt, out, "scalar", size, threads))
        xs = sc["ns_per_elem"] / b["ns_per_elem"] if sc else float("nan")
        print(f"{fmt:9} {out:4} {size:12} {threads[1:]:>3} {isa:10} {b['ns_per_elem']:8.3f} {b['GBps']:7.1f} "
              f"{b['x_memset']:9.2f} {xs:9.1f}")

    def get(fmt, out, isa, size, t):
        return rows.get((fmt, out, isa, size, t))

    # One line per format: the README's summary (f32 output; ratios from the same run).
    large = next((b for k, b in rows.items() if k[3] == "large"), None)
    large_mib = large["out_mib"] if large and "out_mib" in large else float("nan")
    llc_mib = large["llc_mib"] if large and "llc_mib" in large else float("nan")
    print(f"\nSummary, f32 output, 1 thread, ns/element (L2 = 256 KiB output; large = {large_mib:.0f} MiB = 4x the "
          f"{llc_mib:.0f} MiB LLC (at least 64 MiB), "
          f"non-temporal stores; x memset = against a fill with the same kind of stores):")
    print(f"{'format':9} " + " ".join(f"{'L2 ' + i:>13}" for i in isas) +
          f" {'x scalar':>8} {'x memset':>8} {'large ' + best:>16} {'GB/s':>6} {'x memset':>8}")
    for f in formats:
        l2 = [rows.get((f, "f32", i, "L2", "t1")) for i in isas]
        big = rows.get((f, "f32", best, "large", "t1"))
        if not all(l2) or not big:
            continue
        print(f"{f:9} " + " ".join(f"{b['ns_per_elem']:13.3f}" for b in l2) +
              f" {l2[0]['ns_per_elem'] / l2[-1]['ns_per_elem']:8.1f} {l2[-1]['x_memset']:8.2f}"
              f" {big['ns_per_elem']:16.3f} {big['GBps']:6.1f} {big['x_memset']:8.2f}")

    print(f"\nTargets ({best} path):")
    p1 = [(f, get(f, "f32", best, "large", "t1")) for f in formats]
    p1 = [(f, b["x_memset"]) for f, b in p1 if b]
    if p1:
        low = [f"{f} {x:.2f}" for f, x in p1 if x < 0.75]
        print(f"P1 large f32 1 thread, x memset: min {min(x for _, x in p1):.2f}; below 0.75: {', '.join(low) or 'none'}")
    p2 = []
    for f in formats:
        s, v = get(f, "f32", "scalar", "L2", "t1"), get(f, "f32", best, "L2", "t1")
        if s and v:
            p2.append((f, s["ns_per_elem"] / v["ns_per_elem"]))
    if p2:
        block = [(f, x) for f, x in p2 if f not in ("f16", "bf16")]
        gm = math.exp(sum(math.log(x) for _, x in block) / len(block))
        low = [f"{f} {x:.1f}" for f, x in block if x < 2]
        fam = [f"{f} {x:.1f}" for f, x in block if (f.startswith("iq2") or f.startswith("iq3") or f == "q1_0") and x < 8]
        print(f"P2 L2 f32 1 thread, x scalar over the 27 formats: geomean {gm:.2f}; below 2x: {', '.join(low) or 'none'}; "
              f"IQ2/IQ3/Q1_0 below 8x: {', '.join(fam) or 'none'}")
    # Issue 13: the grid-codebook IQ formats, SIMD vs scalar on every SIMD path of this run.
    grid_iq = [f for f in formats if f in ("iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s")]
    for isa in isas[1:]:
        xs = []
        for f in grid_iq:
            s, v = get(f, "f32", "scalar", "L2", "t1"), get(f, "f32", isa, "L2", "t1")
            if s and v:
                xs.append(f"{f} {s['ns_per_elem'] / v['ns_per_elem']:.1f}")
        if xs:
            print(f"SIMD vs scalar, grid IQ formats, L2 f32 1 thread, {isa} (target 8x): {', '.join(xs)}")
    for size, label in (("L2", "L2-resident (256 KiB per thread)"), ("large", f"{large_mib:.0f} MiB")):
        sp = []
        for f in formats:
            one, two = get(f, "f32", best, size, "t1"), get(f, "f32", best, size, "t2")
            if one and two:
                sp.append((f, one["ns_per_elem"] / two["ns_per_elem"] * (2 if size == "L2" else 1), two["x_memset"]))
        if sp:
            print(f"P3 {label}, 2 threads: throughput x 1 thread min {min(s for _, s, _ in sp):.2f} "
                  f"geomean {math.exp(sum(math.log(s) for _, s, _ in sp) / len(sp)):.2f}; "
                  f"x 2-thread memset min {min(m for _, _, m in sp):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
