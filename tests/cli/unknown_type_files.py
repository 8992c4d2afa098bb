"""Test helper: GGUF files with a tensor of a ggml type onnxq does not know (142, as prism-ml's ternary
models use), between two known tensors and as the last one, little- and big-endian; files with Q2_0
tensors in PrismML's 128-value, 34-byte blocks and with one Q2_0 tensor that fits no layout; and
expect.json with what an independent reader (gguf_tool.read_gguf) finds in them.

`unknown_type_files.py OUTDIR` writes OUTDIR/<name>.gguf and OUTDIR/expect.json.
"""
import hashlib
import json
import struct
import sys

from gguf_tool import read_gguf, to_big_endian, write_gguf
from model_files import s, tokenizer, u32

UNKNOWN, Q8_0, F32, Q2_0 = 142, 8, 0, 42
ALIGNMENT = 32


def q8_0(ne0, rows):
    """Q8_0 blocks with scale 1.0, so that each value is its int8 quant."""
    out = bytearray()
    for b in range(ne0 * rows // 32):
        out += struct.pack("<e", 1.0) + bytes(((b * 32 + i) % 7 - 3) & 0xFF for i in range(32))
    return bytes(out)


def metadata():
    return [(b"general.architecture", *s("llama")), (b"llama.block_count", *u32(1)),
            (b"llama.context_length", *u32(256)), (b"llama.embedding_length", *u32(64)),
            (b"llama.attention.head_count", *u32(4)), (b"llama.attention.head_count_kv", *u32(4))] + \
           [(k.encode(), *v) for k, v in tokenizer()]


EMBD = [b"token_embd.weight", (64, 2), Q8_0, 0, q8_0(64, 2)]
TERNARY = [b"blk.0.ffn_down.weight", (128,), UNKNOWN, 0, bytes((i * 37 + 11) % 256 for i in range(40))]
NORM = [b"output_norm.weight", (64,), F32, 0, struct.pack("<64f", *[i / 8 for i in range(64)])]


def write(out, name, tensors, kvs=None):
    path = f"{out}/{name}.gguf"
    write_gguf(path, metadata() if kvs is None else kvs, tensors, ALIGNMENT)
    return path


def facts(path, stored=None):
    """Each tensor's type and the bytes up to the next tensor's offset (or the end of the file), as
    read_gguf gives them. `stored`: the same layout with other bytes (a big-endian copy), read from there."""
    data = open(path, "rb").read()
    _, tensors, _ = read_gguf(data)
    data_start = len(data) - sum(len(t[4]) for t in tensors)  # the tensors fill the data section
    out = {}
    for name, _, t, offset, raw in tensors:
        if stored is not None:
            raw = stored[data_start + offset:data_start + offset + len(raw)]
        out[name.decode()] = {"type": t, "offset": offset, "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
    return out


def main(out):
    expect = {}
    for name, tensors in [("mid", [EMBD, TERNARY, NORM]), ("last", [EMBD, NORM, TERNARY])]:
        path = write(out, name, tensors)
        expect[name] = facts(path)
        be = to_big_endian(open(path, "rb").read(), opaque=(UNKNOWN,))
        open(f"{out}/{name}-be.gguf", "wb").write(be)
        expect[name + "-be"] = facts(path, stored=be)
    # The same model with other bytes in the unknown tensor (for diff).
    changed = [EMBD, TERNARY[:4] + [bytes(40)], NORM]
    expect["mid-changed"] = facts(write(out, "mid-changed", changed))
    # An unknown tensor whose offset lies past the end of the file: its size cannot be inferred.
    path = write(out, "past-end", [EMBD, NORM, TERNARY])
    data = bytearray(open(path, "rb").read())
    at = data.index(TERNARY[0]) + len(TERNARY[0]) + 4 + 8 + 4
    data[at:at + 8] = struct.pack("<Q", 1 << 20)
    open(path, "wb").write(data)
    # PrismML's Q2_0: 128 values in 34 bytes (ggml's: 64 in 18), two tensors.
    prism = [[b"blk.0.attn_q.weight", (256,), Q2_0, 0, bytes(range(68))],
             [b"blk.0.attn_k.weight", (128, 2), Q2_0, 0, bytes(68)]]
    write(out, "prism", prism, kvs=[])
    # One Q2_0 tensor with 40 bytes: neither layout fits it.
    write(out, "missized", [[b"blk.0.attn_q.weight", (256,), Q2_0, 0, bytes(40)]], kvs=[])
    json.dump(expect, open(f"{out}/expect.json", "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
