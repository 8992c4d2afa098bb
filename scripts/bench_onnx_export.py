"""Timing for scripts/bench-onnx-export: `onnxq export MODEL.gguf -o MODEL.onnx` of a generated 1 GiB
Q8_0 model shaped like a small llama (20 blocks of seven 2048-wide matrices and two F32 norms, token
embeddings and output: 183 tensors). The tensor bytes are a sparse file of zeros: the export reads
none of them. Prints the median wall time of the runs and the .onnx's size, with the issue's targets
(well under a second, under 1 MiB) marked pass or FAIL. The files go to a temporary folder, removed
on exit.

Usage: bench_onnx_export.py ONNXQ [--runs N] [--dir DIR]
"""
import argparse
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HIDDEN, FFN, VOCAB, LAYERS = 2048, 5632, 32000, 20
Q8_0, F32 = (8, 32, 34), (0, 1, 4)  # ggml type, block elements, block bytes


def tensors():
    yield "token_embd.weight", Q8_0, (HIDDEN, VOCAB)
    for i in range(LAYERS):
        for name, shape in (("attn_q", (HIDDEN, HIDDEN)), ("attn_k", (HIDDEN, 256)), ("attn_v", (HIDDEN, 256)),
                            ("attn_output", (HIDDEN, HIDDEN)), ("ffn_gate", (HIDDEN, FFN)),
                            ("ffn_up", (HIDDEN, FFN)), ("ffn_down", (FFN, HIDDEN))):
            yield f"blk.{i}.{name}.weight", Q8_0, shape
        yield f"blk.{i}.attn_norm.weight", F32, (HIDDEN,)
        yield f"blk.{i}.ffn_norm.weight", F32, (HIDDEN,)
    yield "output_norm.weight", F32, (HIDDEN,)
    yield "output.weight", Q8_0, (HIDDEN, VOCAB)


def write_model(path):
    """A GGUF v3 file: header and tensor infos written, the data a hole of the right size."""
    def s(x):
        return struct.pack("<Q", len(x)) + x
    infos, offset = b"", 0
    rows = list(tensors())
    for name, (ggml_type, block, nbytes), ne in rows:
        offset += -offset % 32
        infos += s(name.encode()) + struct.pack("<I", len(ne)) + struct.pack("<" + "Q" * len(ne), *ne)
        infos += struct.pack("<IQ", ggml_type, offset)
        count = 1
        for d in ne:
            count *= d
        offset += count // block * nbytes
    head = b"GGUF" + struct.pack("<IQQ", 3, len(rows), 2)
    head += s(b"general.architecture") + struct.pack("<I", 8) + s(b"llama")
    head += s(b"general.name") + struct.pack("<I", 8) + s(b"bench 1 GiB q8_0")
    head += infos
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(len(head) + offset)
    return len(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxq")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as work:
        gguf = os.path.join(work, "model.gguf")
        onnx = os.path.join(work, "model.onnx")
        count = write_model(gguf)
        times = []
        for _ in range(args.runs):
            if os.path.exists(onnx):
                os.remove(onnx)
            start = time.perf_counter()
            p = subprocess.run([args.onnxq, "export", gguf, "-o", onnx], capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if p.returncode != 0:
                sys.exit(f"bench-onnx-export: onnxq export failed ({p.returncode}): {p.stderr[-2000:]}")
        median = statistics.median(times)
        size = os.path.getsize(onnx)
        gib = os.path.getsize(gguf) / (1 << 30)
        print(f"model: {gib:.2f} GiB, {count} tensors (Q8_0 and F32)")
        print(f"onnxq export -o model.onnx: median {median * 1000:.1f} ms of {args.runs} runs "
              f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}) "
              f"[target well under 1 s: {'pass' if median < 0.5 else 'FAIL'}]")
        print(f"model.onnx: {size} bytes ({size / 1024:.1f} KiB) [target under 1 MiB: "
              f"{'pass' if size < (1 << 20) else 'FAIL'}]")
        print(f"load: {open('/proc/loadavg').read().split()[0]} (1-minute load average; 2 cores)")


if __name__ == "__main__":
    main()
