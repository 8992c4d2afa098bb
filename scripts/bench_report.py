"""onnxq report's cost (scripts/bench-report):
  header:  a llama-shaped model of 1,000 Q4_K/Q6_K/F32 tensors and 112 GB whose data section is a
           hole (a sparse file), reported without --values and --compare: the wall time (median of
           RUNS) and the page's size. Only the header is read, so the data's size does not matter.
  compare: a 16-layer model of 512 wide (tests/browser/make_models.py: Q4_K/Q6_K, its float32
           source) reported with --compare against `onnxq diff` of the same pair (each the median
           of RUNS, interleaved): the decoding is diff's.
  values:  the same model reported with --values '*' (every tensor's statistics and histograms).

Usage: bench_report.py ONNXQ [--runs N]
"""
import argparse
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

Q4_K, Q6_K, F32 = 12, 14, 0
BLOCK = {Q4_K: (256, 144), Q6_K: (256, 210), F32: (1, 4)}


def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def write_sparse_model(path, layers=110, dim=12288, ffn=36864, kv=1536):
    """1,000 tensors' header (110 layers of 9, and 10 more), the data section left as a hole."""
    tensors = [("token_embd.weight", (dim, 128256), Q4_K)]
    for i in range(layers):
        p = f"blk.{i}."
        heavy = Q6_K if i % 3 == 2 else Q4_K
        tensors += [(p + "attn_norm.weight", (dim,), F32), (p + "attn_q.weight", (dim, dim), Q4_K),
                    (p + "attn_k.weight", (dim, kv), Q4_K), (p + "attn_v.weight", (dim, kv), heavy),
                    (p + "attn_output.weight", (dim, dim), Q4_K), (p + "ffn_norm.weight", (dim,), F32),
                    (p + "ffn_gate.weight", (dim, ffn), Q4_K), (p + "ffn_up.weight", (dim, ffn), Q4_K),
                    (p + "ffn_down.weight", (ffn, dim), heavy)]
    for k in range(8):
        tensors.append((f"extra.{k}.weight", (dim,), F32))
    tensors.append(("output.weight", (dim, 128256), Q6_K))
    kvs = [("general.architecture", 8, s("llama")), ("general.name", 8, s("bench-llama-1000")),
           ("llama.block_count", 4, struct.pack("<I", layers))]
    head = struct.pack("<4sIQQ", b"GGUF", 3, len(tensors), len(kvs))
    for key, t, payload in kvs:
        head += s(key) + struct.pack("<I", t) + payload
    offset = 0
    for name, ne, t in tensors:
        head += s(name) + struct.pack("<I", len(ne)) + struct.pack("<" + "Q" * len(ne), *ne) + struct.pack("<IQ", t, offset)
        n = 1
        for d in ne:
            n *= d
        per, size = BLOCK[t]
        offset += -(-(n // per * size) // 32) * 32
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(len(head) + offset)
    return len(tensors), len(head) + offset


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxq")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    onnxq = [args.onnxq, "-q"]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as work:
        big = os.path.join(work, "big.gguf")
        count, size = write_sparse_model(big)
        page = os.path.join(work, "big.html")
        times = [wall(onnxq + ["report", big, "-o", page]) for _ in range(args.runs)]
        print(f"header:  {count} tensors, {size / 1e9:.0f} GB model: report {statistics.median(times) * 1000:.0f} ms "
              f"(median of {args.runs}), page {os.path.getsize(page) / 1024:.0f} KiB")

        models = os.path.join(work, "models")
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "..", "tests", "browser", "make_models.py"), args.onnxq,
                        models, "16", "512"], check=True)
        model, ref = os.path.join(models, "model.gguf"), os.path.join(models, "ref.gguf")
        report, diff = [], []
        for _ in range(args.runs):
            report.append(wall(onnxq + ["report", model, "--compare", ref, "-o", os.path.join(work, "c.html")]))
            diff.append(wall(onnxq + ["diff", model, ref]))
        mb = (os.path.getsize(model) + os.path.getsize(ref)) / 1e6
        r, d = statistics.median(report), statistics.median(diff)
        print(f"compare: {mb:.0f} MB of models: report --compare {r * 1000:.0f} ms, diff {d * 1000:.0f} ms "
              f"(ratio {r / d:.2f}), page {os.path.getsize(os.path.join(work, 'c.html')) / 1024:.0f} KiB")
        values = [wall(onnxq + ["report", model, "--values", "*", "-o", os.path.join(work, "v.html")])
                  for _ in range(args.runs)]
        print(f"values:  every tensor of the {os.path.getsize(model) / 1e6:.0f} MB model: "
              f"{statistics.median(values) * 1000:.0f} ms, page {os.path.getsize(os.path.join(work, 'v.html')) / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
