"""onnxq's decoders against ggml's own, for scripts/bench --ggml DIR (issue 35): for every format
ggml knows, tests/bench/ggml/ggml_to_float_bench.cpp decodes the same input blocks (the format's
ggml test blocks, tiled) into float32 at one thread with onnxq's decode_blocks (the active SIMD path)
and with ggml's to_float (ggml_get_type_traits(type)->to_float, the row decoder of ggml-base), into
warm buffers of the same size: 256 KiB of output (L2) and LARGE_MIB (64 MiB). The two run
alternately; each keeps its fastest run over all rounds. x ggml = ggml ns/element / onnxq
ns/element (onnxq's speed over ggml's); bits: whether both wrote the same bits.

DIR is a ggml checkout the developer provides (nothing of ggml is vendored; no test needs it). Its
ggml-base library is built with cmake (Release, CPU backend only, ggml's own flags) in GGML_BUILD
(default BUILD_DIR/ggml) unless it is there already; the harness is compiled with the library's
compiler against DIR's headers, BUILD_DIR/lib/libonnxq.a and that libggml-base.

With the quantize table comes a whole-command one: `onnxq quantize --raw` (a fresh process: read
the file, check, quantize, write it atomically) against tests/bench/ggml/ggml_quantize_file.cpp, the
same work done with ggml (read the file, ggml_quantize_init, ggml_quantize_chunk at one thread, write),
on the same raw float32 file of COMMAND_MIB (default 64) in /dev/shm (a RAM file system: the time is
the command's, not the disk's, and onnxq's fsync costs nothing there); best wall time of 5 interleaved
runs each, outputs compared.

Usage: bench_ggml.py --ggml DIR [--ggml-build GGML_BUILD] [--build-dir BUILD_DIR] [--rounds N]
                     [--large-mib M] [--formats q4_0,q8_0] [--only decode|quantize] [--quantize-mib M]
                     [--command-mib M] [--command-formats q4_0,q8_0]
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HARNESS = os.path.join(REPO, "tests", "bench", "ggml", "ggml_to_float_bench.cpp")
QUANTIZE_HARNESS = os.path.join(REPO, "tests", "bench", "ggml", "ggml_quantize_bench.cpp")
QUANTIZE_FILE = os.path.join(REPO, "tests", "bench", "ggml", "ggml_quantize_file.cpp")


def fail(message):
    sys.exit(f"bench: {message}")


def run(argv, what):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        lines = (r.stderr or r.stdout).strip().splitlines()
        fail(f"{what} failed: {lines[-1] if lines else ' '.join(argv)}")
    return r.stdout


def ggml_base_library(build):
    found = sorted(glob.glob(os.path.join(build, "**", "libggml-base.so"), recursive=True) +
                   glob.glob(os.path.join(build, "**", "libggml-base.a"), recursive=True))
    return found[0] if found else None


def cmake_cache(build_dir, key):
    try:
        for line in open(os.path.join(build_dir, "CMakeCache.txt")):
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def describe_ggml(ggml):
    commit = subprocess.run(["git", "-C", ggml, "log", "-1", "--format=%h %cd", "--date=short"], capture_output=True,
                            text=True).stdout.strip()
    if commit:
        return f"commit {commit}"
    text = open(os.path.join(ggml, "CMakeLists.txt")).read()
    version = ".".join(re.findall(r"GGML_VERSION_(?:MAJOR|MINOR|PATCH)\s+(\d+)", text))
    return f"version {version or '?'} (not a git checkout)"


def lscpu(field):
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    m = re.search(rf"^{field}:\s*(.*)$", out, re.M)
    return m.group(1).strip() if m else "?"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--ggml", required=True, metavar="DIR", help="a ggml checkout (github.com/ggml-org/ggml)")
    ap.add_argument("--ggml-build", metavar="DIR", help="where ggml-base is (or gets) built; default BUILD_DIR/ggml")
    ap.add_argument("--build-dir", default=os.environ.get("BUILD_DIR", "build"), help="onnxq's build folder")
    ap.add_argument("--rounds", type=int, default=1, help="runs of the whole comparison; each keeps its fastest")
    ap.add_argument("--large-mib", type=int, default=64, help="output size of the large case (MiB)")
    ap.add_argument("--formats", default="", help="comma-separated, e.g. q4_0,q4_k (default: all)")
    ap.add_argument("--only", choices=["decode", "quantize"], help="one of the two tables (default: both)")
    ap.add_argument("--quantize-mib", type=float, default=16,
                    help="float32 input of the quantize table (MiB; the IQ grid types get an eighth)")
    ap.add_argument("--command-mib", type=float, default=64,
                    help="float32 input of the whole-command table (MiB)")
    ap.add_argument("--command-formats", default="q4_0,q8_0,q4_k,q6_k,q3_k,iq4_xs",
                    help="formats of the whole-command table (comma-separated)")
    ap.error = lambda message: fail(f"{message} (scripts/bench --ggml DIR [--ggml-build DIR] [--rounds N] "
                                    f"[--large-mib M] [--formats LIST] [--only decode|quantize]; --help for more)")
    args = ap.parse_args()

    ggml = os.path.abspath(args.ggml)
    if not os.path.isdir(ggml):
        fail(f"--ggml {args.ggml}: no such directory")
    for need in ("CMakeLists.txt", "include/ggml.h", "src/ggml-quants.c"):
        if not os.path.isfile(os.path.join(ggml, need)):
            fail(f"--ggml {args.ggml}: not a ggml checkout (no {need})")
    build_dir = os.path.join(REPO, args.build_dir) if not os.path.isabs(args.build_dir) else args.build_dir
    libonnxq = os.path.join(build_dir, "lib", "libonnxq.a")
    if not os.path.isfile(libonnxq):
        fail(f"no {libonnxq}; run scripts/build")
    ggml_build = os.path.abspath(args.ggml_build or os.path.join(build_dir, "ggml"))

    # ggml-base: configured once, then brought up to date (a no-op when it is).
    if not os.path.isfile(os.path.join(ggml_build, "CMakeCache.txt")):
        print(f"bench: configuring ggml in {ggml_build}", file=sys.stderr)
        run(["cmake", "-S", ggml, "-B", ggml_build, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=ON",
             "-DGGML_BUILD_TESTS=OFF", "-DGGML_BUILD_EXAMPLES=OFF", "-DGGML_NATIVE=ON"], "configuring ggml")
    run(["cmake", "--build", ggml_build, "--target", "ggml-base", "-j", str(os.cpu_count() or 1)], "building ggml-base")
    lib = ggml_base_library(ggml_build)
    if not lib:
        fail(f"no libggml-base in {ggml_build} after building it")

    cxx = cmake_cache(build_dir, "CMAKE_CXX_COMPILER") or "c++"
    tmp = tempfile.mkdtemp(prefix="onnxq-bench-ggml.")
    try:
        exe = os.path.join(tmp, "ggml_to_float_bench")
        argv = [cxx, "-std=c++20", "-O2", "-fopenmp", "-I", os.path.join(REPO, "lib", "include"), "-I",
                os.path.join(ggml, "include"), HARNESS, libonnxq, lib, "-Wl,-rpath," + os.path.dirname(lib),
                "-lpthread", "-o", exe]
        if args.only != "quantize":
            run(argv, "compiling tests/bench/ggml/ggml_to_float_bench.cpp")
        if args.only != "decode":
            qexe = os.path.join(tmp, "ggml_quantize_bench")
            run(argv[:argv.index(HARNESS)] + [QUANTIZE_HARNESS] + argv[argv.index(HARNESS) + 1:-1] + [qexe],
                "compiling tests/bench/ggml/ggml_quantize_bench.cpp")
            quantize_out = run([qexe, str(args.quantize_mib), str(max(args.rounds, 3))] +
                               ([args.formats] if args.formats else []), "the quantize benchmark")
            fexe = os.path.join(tmp, "ggml_quantize_file")
            run([cxx, "-std=c++20", "-O2", "-I", os.path.join(ggml, "include"), QUANTIZE_FILE, lib,
                 "-Wl,-rpath," + os.path.dirname(lib), "-o", fexe], "compiling tests/bench/ggml/ggml_quantize_file.cpp")
            command_rows = time_commands(os.path.join(build_dir, "onnxq"), fexe, args.command_mib,
                                         args.command_formats.split(","))

        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        best, order, path, skipped = {}, [], "?", []
        for _ in range(args.rounds if args.only != "quantize" else 0):
            out = run([exe, os.path.join(REPO, "testdata", "gguf", "blocks"), str(args.large_mib)] +
                      ([args.formats] if args.formats else []), "the benchmark")
            for line in out.splitlines():
                f = line.split()
                if line.startswith("# onnxq path"):
                    path = f[-1]
                elif len(f) == 2:
                    if f[0] not in skipped:
                        skipped.append(f"{f[0]} ({f[1]})")
                elif len(f) == 5:
                    key = (f[0], f[1])
                    ours = float(f[2])
                    theirs = None if f[3] == "-" else float(f[3])
                    if key not in best:
                        order.append(key)
                        best[key] = [ours, theirs, f[4]]
                    else:
                        b = best[key]
                        b[0] = min(b[0], ours)
                        b[1] = None if theirs is None else min(b[1], theirs)
                        if f[4] == "DIFFER":
                            b[2] = "DIFFER"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    flags = " ".join(f for f in (cmake_cache(ggml_build, "CMAKE_C_FLAGS"), cmake_cache(ggml_build, "CMAKE_C_FLAGS_RELEASE"))
                     if f)
    if args.only != "decode":
        print_quantize_table(quantize_out, started, ggml, lib, ggml_build, flags)
        print()
        print_command_table(command_rows, args.command_mib)
    if args.only == "quantize":
        return
    print(f"scripts/bench --ggml {started}, {args.rounds} round(s); {lscpu('Model name')}, {os.cpu_count()} CPUs; "
          f"onnxq path {path}, 1 thread; ggml {describe_ggml(ggml)}, to_float of {os.path.basename(lib)} "
          f"({cmake_cache(ggml_build, 'CMAKE_BUILD_TYPE') or '?'}, C flags '{flags}')")
    print(f"ns/element of float32 output, fastest run; x ggml = ggml time / onnxq time (onnxq's speed over "
          f"ggml's); L2 = 256 KiB of output, large = {args.large_mib} MiB; bits: both outputs bit for bit equal")
    print(f"{'format':9} {'onnxq L2':>9} {'ggml L2':>9} {'x ggml':>7} {'onnxq large':>12} {'ggml large':>11} "
          f"{'x ggml':>7} {'bits':>6}")
    ratios = {"L2": [], "large": []}
    no_to_float = []
    for fmt in dict.fromkeys(k[0] for k in order):
        l2, large = best.get((fmt, "L2")), best.get((fmt, "large"))
        if l2[1] is None:
            no_to_float.append(fmt)
            continue
        bits = "same" if l2[2] == "same" and large[2] == "same" else "DIFFER"
        x2, xl = l2[1] / l2[0], large[1] / large[0]
        ratios["L2"].append(x2)
        ratios["large"].append(xl)
        print(f"{fmt:9} {l2[0]:9.3f} {l2[1]:9.3f} {x2:6.2f}x {large[0]:12.3f} {large[1]:11.3f} {xl:6.2f}x {bits:>6}")
    print(f"geomean over {len(ratios['L2'])} formats: L2 {geomean(ratios['L2']):.2f}x ggml "
          f"(min {min(ratios['L2'], default=float('nan')):.2f}x, max {max(ratios['L2'], default=float('nan')):.2f}x); "
          f"large {geomean(ratios['large']):.2f}x ggml (min {min(ratios['large'], default=float('nan')):.2f}x, "
          f"max {max(ratios['large'], default=float('nan')):.2f}x)")
    if no_to_float:
        print(f"no to_float in ggml's traits (not compared): {', '.join(no_to_float)}")
    if skipped:
        print(f"not compared: {', '.join(dict.fromkeys(skipped))}")


def print_quantize_table(out, started, ggml, lib, ggml_build, flags):
    """The quantize harness's lines as a table: per format, onnxq's speed over ggml's at one thread (and
    onnxq at 2 threads over ggml at one), first and second call, ggml's grid set-up, equal bytes."""
    path, rows = "?", []
    for line in out.splitlines():
        f = line.split()
        if line.startswith("# onnxq path"):
            path = f[-1]
        elif len(f) == 10:
            rows.append(f)
    print(f"scripts/bench --ggml, quantizing, {started}; {lscpu('Model name')}, {os.cpu_count()} CPUs; onnxq path "
          f"{path}; ggml {describe_ggml(ggml)}, ggml_quantize_chunk of {os.path.basename(lib)} "
          f"({cmake_cache(ggml_build, 'CMAKE_BUILD_TYPE') or '?'}, C flags '{flags}')")
    print("ns/value of float32 input, fastest run; x ggml = ggml time / onnxq time at 1 thread (2t: onnxq on 2 "
          "threads); first/second: onnxq's first and second call (ms; no set-up at run time); ggml init: "
          "ggml_quantize_init (ms); bytes: onnxq's and ggml's equal")
    print(f"{'format':8} {'imatrix':>7} {'values':>9} {'onnxq':>8} {'ggml':>8} {'x ggml':>7} {'2t x':>6} "
          f"{'first':>8} {'second':>8} {'ggml init':>9} {'bytes':>6}")
    primary = {}
    for fmt, imatrix, values, one, two, theirs, first, second, init, same in rows:
        one, two, theirs = float(one), float(two), float(theirs)
        x1, x2 = theirs / one, theirs / two
        primary.setdefault(fmt, x1)  # the case without an importance matrix, where a format has one
        print(f"{fmt:8} {imatrix:>7} {int(values):9d} {one:8.2f} {theirs:8.2f} {x1:6.2f}x {x2:5.2f}x "
              f"{float(first):8.1f} {float(second):8.1f} {float(init):9.1f} {same:>6}")
    ratios = list(primary.values())
    if ratios:
        print(f"geomean over {len(ratios)} formats (without an importance matrix where a format can): "
              f"{geomean(ratios):.2f}x ggml at 1 thread (min {min(ratios):.2f}x, max {max(ratios):.2f}x)")


def time_commands(onnxq, ggml_file, mib, formats):
    """Best wall times (s) of onnxq's quantize --raw at 1 thread and all threads and of the ggml program,
    5 interleaved runs each, on one raw float32 file in /dev/shm; and whether the outputs are equal."""
    try:
        import numpy as np
    except ImportError:
        fail("the whole-command table needs numpy (scripts/setup --test installs python3-numpy)")
    n_per_row = 4096
    rows = max(1, int(mib * 1024 * 1024 / 4 / n_per_row))
    rng = np.random.default_rng(7)
    x = (0.02 * rng.standard_normal((rows, n_per_row))).astype(np.float32)
    x[3::4] /= np.sqrt(rng.random((len(x[3::4]), 1)) + 0.01).astype(np.float32)  # heavy-tailed rows
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="onnxq-bench-command.", dir=shm)
    try:
        src = os.path.join(work, "in.f32")
        x.tofile(src)
        ids = {f["format_id"].removeprefix("gguf:"): f["ggml_type"]
               for f in json.loads(run([onnxq, "formats", "--json"], "onnxq formats")) if "ggml_type" in f}
        results = []
        for fmt in formats:
            if fmt not in ids:
                fail(f"--command-formats: unknown format {fmt}")
            out = {k: os.path.join(work, f"{k}.bin") for k in ("o1", "on", "g")}
            cmds = {
                "o1": [onnxq, "quantize", "--raw", src, "--shape", f"{rows},{n_per_row}", "--packed-format",
                       f"gguf:{fmt}", "-o", out["o1"], "--threads", "1"],
                "on": [onnxq, "quantize", "--raw", src, "--shape", f"{rows},{n_per_row}", "--packed-format",
                       f"gguf:{fmt}", "-o", out["on"]],
                "g": [ggml_file, str(ids[fmt]), str(n_per_row), src, out["g"]],
            }
            best = {k: float("inf") for k in cmds}
            for _ in range(5):
                for k, argv in cmds.items():
                    start = time.perf_counter()
                    run(argv, f"{' '.join(argv[:2])} {fmt}")
                    best[k] = min(best[k], time.perf_counter() - start)
            same = all(open(out[k], "rb").read() == open(out["g"], "rb").read() for k in ("o1", "on"))
            results.append((fmt, best["o1"], best["on"], best["g"], same))
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_command_table(rows, mib):
    print(f"whole command, {mib:g} MiB of float32 rows (4096 values each) in /dev/shm: `onnxq quantize --raw` "
          f"against tests/bench/ggml/ggml_quantize_file.cpp (read, ggml_quantize_chunk at 1 thread, write); "
          f"best wall time of 5 interleaved runs (ms); x ggml = ggml time / onnxq time; bytes: outputs equal")
    print(f"{'format':8} {'onnxq 1t':>9} {'onnxq all':>10} {'ggml':>9} {'x ggml 1t':>10} {'x ggml all':>11} {'bytes':>6}")
    for fmt, o1, on, g, same in rows:
        print(f"{fmt:8} {o1 * 1e3:9.1f} {on * 1e3:10.1f} {g * 1e3:9.1f} {g / o1:9.2f}x {g / on:10.2f}x "
              f"{'same' if same else 'DIFFER':>6}")


if __name__ == "__main__":
    main()
