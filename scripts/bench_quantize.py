"""Whole-model quantizing for scripts/bench-quantize: `onnxq quantize` of a generated llama-like F16
model to Q4_K_M at one thread and at all threads, against the same work done the way llama-quantize
does it (ggml's to_float, then ggml_quantize_chunk, tensor by tensor at one thread; timed by
tests/bench/ggml/ggml_gguf_check.cpp, which also checks that every tensor onnxq wrote is ggml's
bytes and that ggml's gguf reader opens the file), and onnxq's peak RSS quantizing a generated F32
model of several GiB against the bound (twice the largest tensor as float32, plus 96 MiB).

The models are generated in WORK (default a temporary folder under /var/tmp) and removed after.
onnxq's times are whole commands (reading, quantizing, writing; the input in the page cache); the
ggml time covers only its conversion and quantization. Best of RUNS for each.

Usage: bench_quantize.py ONNXQ [--mib 1024] [--big-mib 4096] [--runs 3] [--ggml DIR [--ggml-build DIR]]
                         [--type Q4_K_M] [--work DIR]
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CHECK = os.path.join(REPO, "tests", "bench", "ggml", "ggml_gguf_check.cpp")


def fail(message):
    sys.exit(f"bench-quantize: {message}")


def gstr(s):
    return struct.pack("<Q", len(s)) + s


def kv_u32(key, v):
    return gstr(key) + struct.pack("<II", 4, v)


def write_model(path, tensors, arch=b"llama", extra=()):
    """tensors: (name, ne list, ggml type, element bytes, filler(count) -> bytes). Streams the data."""
    kvs = [gstr(b"general.architecture") + struct.pack("<I", 8) + gstr(arch)] + list(extra)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    offset, infos = 0, []
    for name, ne, ggml_type, size, _ in tensors:
        n = int(np.prod(ne)) * size
        infos.append(gstr(name) + struct.pack("<I", len(ne)) + struct.pack("<" + "Q" * len(ne), *ne) +
                     struct.pack("<IQ", ggml_type, offset))
        offset += n + (-n % 32)
    head += b"".join(infos)
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        for name, ne, ggml_type, size, fill in tensors:
            n = int(np.prod(ne))
            done = 0
            while done < n:  # 64 Mi elements at a time: the generator's memory stays small
                k = min(n - done, 1 << 26)
                f.write(fill(k, done))
                done += k
            f.write(b"\0" * (-(n * size) % 32))


def pool(dtype):
    x = np.random.default_rng(5).standard_normal(1 << 24).astype(np.float32)
    x[::97] *= 8.0  # a few outliers per row, as trained weights have
    return x.astype(dtype)


def filler(values, salt):
    def fill(k, done):
        start = (done * 7 + salt * 104729) % (values.size - k) if values.size > k else 0
        if values.size >= k:
            return values[start:start + k].tobytes()
        return np.resize(np.roll(values, salt), k).tobytes()
    return fill


def llama_model(path, mib):
    """A llama-like F16 model (hidden 2048, 32 heads, 4 KV heads, feed-forward 5632, 32000 tokens),
    with as many layers as make about MIB MiB."""
    x = pool(np.float16)
    n_embd, n_ff, n_vocab, kv = 2048, 5632, 32000, 256
    per_layer = 2 * (2 * n_embd * n_embd + 2 * n_embd * kv + 3 * n_embd * n_ff + 2 * n_embd)
    layers = max(1, (mib * (1 << 20) - 2 * 2 * n_embd * n_vocab) // per_layer)
    t, salt = [], 0

    def add(name, ne, size=2, ggml_type=1):
        nonlocal salt
        salt += 1
        t.append((name.encode(), ne, ggml_type, size, filler(x if size == 2 else x.astype(np.float32), salt)))

    add("token_embd.weight", [n_embd, n_vocab])
    for i in range(layers):
        add(f"blk.{i}.attn_norm.weight", [n_embd], 4, 0)
        add(f"blk.{i}.attn_q.weight", [n_embd, n_embd])
        add(f"blk.{i}.attn_k.weight", [n_embd, kv])
        add(f"blk.{i}.attn_v.weight", [n_embd, kv])
        add(f"blk.{i}.attn_output.weight", [n_embd, n_embd])
        add(f"blk.{i}.ffn_norm.weight", [n_embd], 4, 0)
        add(f"blk.{i}.ffn_gate.weight", [n_embd, n_ff])
        add(f"blk.{i}.ffn_up.weight", [n_embd, n_ff])
        add(f"blk.{i}.ffn_down.weight", [n_ff, n_embd])
    add("output_norm.weight", [n_embd], 4, 0)
    add("output.weight", [n_embd, n_vocab])
    extra = [kv_u32(b"llama.block_count", layers), kv_u32(b"llama.embedding_length", n_embd),
             kv_u32(b"llama.feed_forward_length", n_ff), kv_u32(b"llama.attention.head_count", 32),
             kv_u32(b"llama.attention.head_count_kv", 4), kv_u32(b"general.file_type", 1)]
    write_model(path, t, extra=extra)
    return layers


def big_model(path, mib):
    """F32 tensors of [4096, 14336] (224 MiB each) making about MIB MiB: the largest tensor is small
    beside the model, so the bound is far below the model's size."""
    x = pool(np.float32)
    n = max(1, mib // 224)
    t = [(f"blk.{i // 3}.ffn_{('gate', 'up', 'down')[i % 3]}.weight".encode(),
          [4096, 14336] if i % 3 != 2 else [14336, 4096], 0, 4, filler(x, i)) for i in range(n)]
    write_model(path, t, extra=[kv_u32(b"llama.block_count", (n + 2) // 3)])
    return n


def timed(argv):
    """Wall seconds and peak RSS (KiB) of a command, through /usr/bin/time -v."""
    start = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if r.returncode != 0:
        fail(f"{' '.join(argv)} failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    return wall, rss


def ggml_checker(ggml, ggml_build, work):
    for need in ("include/ggml.h", "include/gguf.h"):
        if not os.path.isfile(os.path.join(ggml, need)):
            fail(f"--ggml {ggml}: not a ggml checkout (no {need})")
    build = ggml_build or os.path.join(ggml, "build")
    libs = sorted(glob.glob(os.path.join(build, "**", "libggml-base.so"), recursive=True))
    if not libs:
        print(f"bench-quantize: building ggml-base in {build}", file=sys.stderr)
        subprocess.run(["cmake", "-S", ggml, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=ON",
                        "-DGGML_BUILD_TESTS=OFF", "-DGGML_BUILD_EXAMPLES=OFF"], check=True, capture_output=True)
        subprocess.run(["cmake", "--build", build, "--target", "ggml-base", "-j", str(os.cpu_count() or 1)],
                       check=True, capture_output=True)
        libs = sorted(glob.glob(os.path.join(build, "**", "libggml-base.so"), recursive=True))
    exe = os.path.join(work, "ggml_gguf_check")
    subprocess.run(["c++", "-std=c++20", "-O2", "-I", os.path.join(ggml, "include"), CHECK, libs[0],
                    "-Wl,-rpath," + os.path.dirname(libs[0]), "-o", exe], check=True)
    return exe, libs[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("onnxq")
    ap.add_argument("--mib", type=int, default=1024, help="size of the llama-like F16 model (MiB)")
    ap.add_argument("--big-mib", type=int, default=4096, help="size of the F32 model for peak RSS (MiB); 0: skip")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--type", default="Q4_K_M")
    ap.add_argument("--ggml", help="a ggml checkout (its ggml-base is built when absent)")
    ap.add_argument("--ggml-build", help="where ggml-base is built (default DIR/build)")
    ap.add_argument("--work", default=os.environ.get("TMPDIR", "/var/tmp"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="onnxq-bench-quantize.", dir=args.work)
    try:
        model, out = os.path.join(work, "model-f16.gguf"), os.path.join(work, "model-q.gguf")
        layers = llama_model(model, args.mib)
        size = os.path.getsize(model)
        subprocess.run(["cat", model], stdout=subprocess.DEVNULL, check=True)  # into the page cache
        cores = os.cpu_count() or 1
        print(f"model: llama-like, {layers} layers, F16, {size / (1 << 20):.0f} MiB; --type {args.type}; "
              f"{cores} cores; best of {args.runs}")
        best = {}
        for _ in range(args.runs):
            for name, threads in (("1 thread", ["--threads", "1"]), (f"{cores} threads", [])):
                wall, _ = timed([args.onnxq, "-q", "quantize", model, "-o", out, "--type", args.type] + threads)
                best[name] = min(best.get(name, wall), wall)
        out_size = os.path.getsize(out)
        for name, wall in best.items():
            print(f"  onnxq quantize, {name:<10} {wall:8.2f} s  {size / wall / (1 << 20):7.1f} MiB/s of input")
        if args.ggml:
            exe, lib = ggml_checker(args.ggml, args.ggml_build, work)
            ggml_best = None
            for _ in range(args.runs):
                r = subprocess.run([exe, out, model], capture_output=True, text=True)
                if r.returncode != 0:
                    fail(f"ggml_gguf_check: {r.stderr.strip()}")
                seconds = float(re.search(r"ggml_seconds ([0-9.]+)", r.stdout).group(1))
                ggml_best = seconds if ggml_best is None else min(ggml_best, seconds)
            print(f"  ggml to_float + ggml_quantize_chunk, 1 thread {ggml_best:8.2f} s  ({lib})")
            print(f"  onnxq at 1 thread is {ggml_best / best['1 thread']:.2f}x ggml's speed; "
                  f"all {cores} threads {ggml_best / best[f'{cores} threads']:.2f}x")
            print(f"  {r.stdout.strip()}")
        print(f"  output: {out_size / (1 << 20):.0f} MiB")
        os.remove(model)
        os.remove(out)
        if args.big_mib:
            big = os.path.join(work, "big-f32.gguf")
            n = big_model(big, args.big_mib)
            largest = 4096 * 14336 * 4
            bound = 2 * largest + (96 << 20)
            wall, rss = timed([args.onnxq, "-q", "quantize", big, "-o", out, "--type", args.type])
            print(f"peak RSS: F32 model of {os.path.getsize(big) / (1 << 30):.2f} GiB ({n} tensors of 224 MiB): "
                  f"{rss / 1024:.0f} MiB, bound {bound / (1 << 20):.0f} MiB (2 x the largest tensor as float32 + "
                  f"96 MiB): {'within' if rss * 1024 < bound else 'OVER'}; {wall:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
