"""Test helper for tests/cli/hash.sh: the manifest llama-gguf-hash would print for a GGUF file,
computed independently of onnxq (its own minimal GGUF reader, hashlib and python3-xxhash).

Usage: hash_expect.py FILE LABEL [TYPES] [--no-layer] [FILE2 ...]
  FILE: the GGUF file; SHARD1+SHARD2+... reads the files as consecutive shards of one model
  LABEL: the FILE part of each name, as the command line gave it
  TYPES: comma-separated, in any order, from xxh64,xxh3,sha1,sha256,uuid (default xxh64)
"""
import hashlib
import struct
import sys
import uuid

import xxhash

# ggml type -> (elements per block, bytes per block), from the GGUF/ggml type table.
BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 9: (32, 36),
          10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
          16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82),
          23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
          34: (256, 54), 35: (256, 66), 39: (32, 17), 40: (64, 36), 41: (128, 18), 42: (64, 18)}
SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
ORDER = ["xxh64", "xxh3", "sha1", "sha256", "uuid"]
NAMESPACE = uuid.UUID("ef001206-dadc-5f6d-a15f-3359e577d4e5")


def tensors_of(data):
    """[(name, bytes as stored)] in tensor-info order."""
    e = "<" if struct.unpack_from("<I", data, 4)[0] in (2, 3) else ">"
    pos = 24
    n_tensors, n_kv = struct.unpack_from(e + "QQ", data, 8)

    def u(fmt):
        nonlocal pos
        v = struct.unpack_from(e + fmt, data, pos)
        pos += struct.calcsize(e + fmt)
        return v

    def skip(t):
        nonlocal pos
        if t == 8:
            (n,) = u("Q")
            pos += n
        elif t == 9:
            et, n = u("IQ")
            for _ in range(n):
                skip(et)
        else:
            pos += SCALAR[t]

    alignment = 32
    for _ in range(n_kv):
        (n,) = u("Q")
        key = data[pos:pos + n]
        pos += n
        (t,) = u("I")
        if key == b"general.alignment":
            alignment = struct.unpack_from(e + "I", data, pos)[0]
        skip(t)
    infos = []
    for _ in range(n_tensors):
        n = u("Q")[0]
        name = data[pos:pos + n].decode()
        pos += n
        (nd,) = u("I")
        ne = u("Q" * nd)
        t, off = u("IQ")
        count = 1
        for d in ne:
            count *= d
        per, size = BLOCKS[t]
        infos.append((name, off, count // per * size))
    start = -(-pos // alignment) * alignment
    return [(name, data[start + off:start + off + nbytes]) for name, off, nbytes in infos]


def main():
    args = [a for a in sys.argv[1:] if a != "--no-layer"]
    no_layer = "--no-layer" in sys.argv
    files = args[0].split("+")  # shards of one model: a+b+c
    label = args[1]
    types = [t for t in ORDER if t in (args[2].split(",") if len(args) > 2 else ["xxh64"])]
    tensors = [t for f in files for t in tensors_of(open(f, "rb").read())]
    one = {"xxh64": lambda b: xxhash.xxh64_hexdigest(b, seed=0), "xxh3": xxhash.xxh3_64_hexdigest,
           "sha1": lambda b: hashlib.sha1(b).hexdigest(), "sha256": lambda b: hashlib.sha256(b).hexdigest()}
    out = []
    if not no_layer:
        for name, raw in tensors:
            for t in types:
                if t != "uuid":
                    out.append("%-8s  %s  %s:%s" % (t, one[t](raw), label, name))
    everything = b"".join(raw for _, raw in tensors)
    for t in types:
        if t == "uuid":
            # uuid5 hashes NAMESPACE.bytes + name: the same SHA-1, version and variant rule.
            digest = hashlib.sha1(NAMESPACE.bytes + everything).digest()
            value = str(uuid.UUID(bytes=digest[:16], version=5))
        else:
            value = one[t](everything)
        out.append("%-8s  %s  %s" % (t, value, label))
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
