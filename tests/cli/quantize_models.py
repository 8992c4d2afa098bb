"""Test helper: small models for `onnxq quantize IN` (tests/cli/quantize_model.sh, python tests).

quantize_models.py tensor FILE.gguf NAME OUT: writes the stored bytes of tensor NAME to OUT.
quantize_models.py TESTDATA OUT_DIR [--big MiB] writes into OUT_DIR:
  tiny.gguf          llama-like: token_embd (F16), a 1-D norm (F32), blk.0.attn_q (F32, ggml's common
                     rows of testdata/quantize), blk.0.ffn_down (BF16), blk.1.ffn_up_exps (3-D F32),
                     output (F32); general.name "tiny"
  q8.gguf            the same attn_q already quantized (Q8_0 bytes from testdata/quantize)
  m.safetensors      two F16/F32 tensors (the common rows), __metadata__ {"format": "pt"}
  shards/model.safetensors.index.json with shards/a.safetensors and shards/b.safetensors
  w.dat              a .dat importance matrix: blk.0.attn_q.weight = ggml's common importance weights
  big.gguf           (with --big MiB) one F32 matrix of that many MiB, for fault injection
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_tool import write_gguf  # noqa: E402


def gstr(s):
    return struct.pack("<Q", len(s)) + s


def bf16(x):
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()


def safetensors(path, tensors, metadata=None):
    header, blob = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, arr in tensors:
        raw = arr.tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    text = json.dumps(header).encode()
    text += b" " * ((-len(text)) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + blob)


def main():
    if sys.argv[1] == "tensor":
        from gguf_tool import read_gguf
        _, tensors, _ = read_gguf(open(sys.argv[2], "rb").read())
        open(sys.argv[4], "wb").write([t for t in tensors if t[0] == sys.argv[3].encode()][0][4])
        return
    testdata, out = sys.argv[1], sys.argv[2]
    big = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--big" else 0
    q = os.path.join(testdata, "quantize")
    rows = np.fromfile(os.path.join(q, "common.input.f32"), dtype="<f4").reshape(32, 256)
    rng = np.random.default_rng(7)
    kvs = [(b"general.architecture", 8, gstr(b"llama")), (b"general.name", 8, gstr(b"tiny")),
           (b"llama.block_count", 4, struct.pack("<I", 2))]

    def t(name, arr, ggml_type, raw=None):
        raw = raw if raw is not None else arr.tobytes()
        return (name.encode(), list(reversed(arr.shape)), ggml_type, 0, raw)

    embd = rng.standard_normal((64, 256)).astype(np.float16)
    tensors = [
        t("token_embd.weight", embd, 1),
        t("blk.0.attn_norm.weight", np.ones(256, np.float32), 0),
        t("blk.0.attn_q.weight", rows, 0),
        t("blk.0.ffn_down.weight", rows, 30, bf16(rows)),
        t("blk.1.ffn_up_exps.weight", rng.standard_normal((4, 32, 256)).astype(np.float32), 0),
        t("output.weight", rng.standard_normal((64, 256)).astype(np.float32), 0),
    ]
    write_gguf(os.path.join(out, "tiny.gguf"), kvs, tensors, 32)

    q8 = open(os.path.join(q, "common.q8_0.bin"), "rb").read()
    q8 = q8[: len(q8) // 2]
    write_gguf(os.path.join(out, "q8.gguf"), kvs, [(b"blk.0.attn_q.weight", [256, 32], 8, 0, q8)], 32)

    safetensors(os.path.join(out, "m.safetensors"),
                [("model.diffusion.z.weight", "F16", rows.astype(np.float16)), ("model.diffusion.a.weight", "F32", rows)],
                {"format": "pt"})
    shards = os.path.join(out, "shards")
    os.makedirs(shards, exist_ok=True)
    safetensors(os.path.join(shards, "a.safetensors"), [("x.weight", "F32", rows)])
    safetensors_bf16(os.path.join(shards, "b.safetensors"), "y.weight", rows)
    json.dump({"metadata": {"total_size": 0}, "weight_map": {"x.weight": "a.safetensors", "y.weight": "b.safetensors"}},
              open(os.path.join(shards, "model.safetensors.index.json"), "w"))

    w = np.fromfile(os.path.join(q, "common.importance.f32"), dtype="<f4")
    name = b"blk.0.attn_q.weight"
    dat = struct.pack("<i", 1) + struct.pack("<i", len(name)) + name + struct.pack("<ii", 1, w.size) + w.tobytes()
    open(os.path.join(out, "w.dat"), "wb").write(dat)

    if big:
        n = big * (1 << 20) // 4 // 4096
        x = rng.standard_normal((n, 4096)).astype(np.float32)
        write_gguf(os.path.join(out, "big.gguf"), kvs, [(b"blk.0.ffn_up.weight", [4096, n], 0, 0, x.tobytes())], 32)


def safetensors_bf16(path, name, arr):
    raw = bf16(arr)
    header = {name: {"dtype": "BF16", "shape": list(arr.shape), "data_offsets": [0, len(raw)]}}
    text = json.dumps(header).encode()
    text += b" " * ((-len(text)) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + raw)


if __name__ == "__main__":
    main()
