#!/usr/bin/python3
"""Regenerates the fuzz seed corpora in tests/fuzz/corpus/<target>/ (checked in).

Usage: scripts/dev/make_fuzz_corpus.py [ONNXQ_BINARY]   (default build/onnxq; used for `formats --json`)
Seeds are small testdata files plus tiny synthetic GGUFs (one per tensor type, both byte orders,
v2 and v3, nested arrays) so that every decoder and parser branch is one mutation away.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(ROOT, "testdata")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
MAX_SEED_BYTES = 4096


class Gguf:
    def __init__(self, big_endian=False, version=3, alignment=32):
        self.e = ">" if big_endian else "<"
        self.version, self.alignment = version, alignment
        self.kv, self.tensors = [], []

    def s(self, text):
        b = text.encode()
        return struct.pack(self.e + "Q", len(b)) + b

    def value(self, t, v):
        e = self.e
        scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}
        if t in scalar:
            return struct.pack(e + scalar[t], v)
        if t == 8:
            return self.s(v)
        et, items = v  # array
        return struct.pack(e + "IQ", et, len(items)) + b"".join(self.value(et, x) for x in items)

    def add_kv(self, key, t, v):
        self.kv.append(self.s(key) + struct.pack(self.e + "I", t) + self.value(t, v))

    def add_tensor(self, name, ne, ggml_type, data):
        self.tensors.append((name, ne, ggml_type, data))

    def bytes(self):
        e, a = self.e, self.alignment
        out = b"GGUF" + struct.pack(e + "IQQ", self.version, len(self.tensors), len(self.kv)) + b"".join(self.kv)
        offset, blobs = 0, []
        for name, ne, ggml_type, data in self.tensors:
            out += self.s(name) + struct.pack(e + "I", len(ne)) + b"".join(struct.pack(e + "Q", d) for d in ne)
            out += struct.pack(e + "IQ", ggml_type, offset)
            blobs.append(data + b"\0" * (-len(data) % a))
            offset += len(blobs[-1])
        out += b"\0" * (-len(out) % a)
        return out + b"".join(blobs)


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def small_files(suffix, limit):
    found = []
    for dirpath, _, names in os.walk(TESTDATA):
        for n in names:
            p = os.path.join(dirpath, n)
            if n.endswith(suffix) and os.path.getsize(p) <= MAX_SEED_BYTES:
                found.append(p)
    found.sort()
    step = max(1, len(found) // limit)
    return found[::step][:limit]


def seed_name(path):
    return os.path.relpath(path, TESTDATA).replace(os.sep, "__")


def gguf_seeds(formats):
    rng = random.Random(7)
    shutil.copy(os.path.join(TESTDATA, "zoo.gguf"), os.path.join(CORPUS, "gguf", "zoo.gguf"))
    for f in formats:
        g = Gguf(big_endian=False)
        g.add_kv("general.architecture", 8, "fuzz")
        g.add_kv("general.alignment", 4, 32)
        n = f["block_elements"] * 2
        g.add_tensor(f["ggml_name"] + ".w", [n, 1], f["ggml_type"], bytes(rng.randrange(256) for _ in range(2 * f["block_bytes"])))
        write("gguf", "type_%s.gguf" % f["ggml_name"], g.bytes())
    for be in (False, True):
        for version in (2, 3):
            g = Gguf(big_endian=be, version=version, alignment=16)
            g.add_kv("general.alignment", 4, 16)
            g.add_kv("u8", 0, 7)
            g.add_kv("i16", 3, -5)
            g.add_kv("f32", 6, 1.5)
            g.add_kv("b", 7, 1)
            g.add_kv("u64", 10, 2**63 + 1)
            g.add_kv("f64", 12, -0.25)
            g.add_kv("arr.u32", 9, (4, [1, 2, 3]))
            g.add_kv("arr.str", 9, (8, ["a", "", "ccc"]))
            g.add_kv("arr.nested", 9, (9, [(0, [1, 2]), (8, ["x"])]))
            g.add_tensor("f32.w", [4, 2], 0, struct.pack(g.e + "8f", *range(8)))
            g.add_tensor("f16.w", [4], 1, struct.pack(g.e + "4e", 1, 2, 3, 4))
            g.add_tensor("i32.w", [2, 1, 1, 1], 26, struct.pack(g.e + "2i", -1, 1))
            g.add_tensor("empty", [0, 3], 0, b"")
            write("gguf", "layout_%s_v%d.gguf" % ("be" if be else "le", version), g.bytes())


def main():
    onnxq = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "onnxq")
    formats = json.loads(subprocess.check_output([onnxq, "formats", "--json"]))
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    for t in ("gguf", "npy", "tensor_proto", "onnx_model", "ops"):
        os.makedirs(os.path.join(CORPUS, t))
    gguf_seeds(formats)
    for p in small_files(".npy", 40):
        shutil.copy(p, os.path.join(CORPUS, "npy", seed_name(p)))
    for p in small_files(".pb", 40):
        shutil.copy(p, os.path.join(CORPUS, "tensor_proto", seed_name(p)))
    for p in small_files(".onnx", 60):
        shutil.copy(p, os.path.join(CORPUS, "onnx_model", seed_name(p)))
    # ops: the first byte picks the operator (0 Unpack, 1 OneHot, 2 Unsqueeze, 3 DequantizePacked).
    rng = random.Random(11)
    for op in range(4):
        for i in range(8):
            write("ops", "op%d_%d" % (op, i), bytes([op]) + bytes(rng.randrange(256) for _ in range(24 + 16 * i)))


if __name__ == "__main__":
    main()
