"""Test helper: read and write little-endian GGUF v3 files, independent of onnxq's reader.

As a module: read_gguf(bytes) -> (kvs, tensors [name, ne, type, offset, raw bytes], alignment),
write_gguf(path, kvs, tensors, alignment).
As a script: gguf_tool.py split IN.gguf OUT_BASE N  ->  OUT_BASE-00001-of-0000N.gguf ...
(shard 1 keeps all metadata; every shard gets split.no / split.count / split.tensors.count).
"""
import struct
import sys

SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def read_gguf(data):
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return vals

    def string():
        nonlocal pos
        (n,) = take("Q")
        s = data[pos:pos + n]
        pos += n
        return s

    def skip_value(t):
        nonlocal pos
        if t == 8:
            string()
        elif t == 9:
            et, n = take("IQ")
            for _ in range(n):
                skip_value(et)
        else:
            pos += SIZES[t]

    magic, version, n_tensors, n_kv = take("4sIQQ")
    assert magic == b"GGUF" and version == 3
    kvs = []
    for _ in range(n_kv):
        key = string()
        (t,) = take("I")
        start = pos
        skip_value(t)
        kvs.append((key, t, data[start:pos]))
    alignment = 32
    for key, t, payload in kvs:
        if key == b"general.alignment":
            alignment = struct.unpack("<I", payload)[0]
    tensors = []
    for _ in range(n_tensors):
        name = string()
        (nd,) = take("I")
        ne = take("Q" * nd)
        t, off = take("IQ")
        tensors.append([name, ne, t, off])
    data_start = (pos + alignment - 1) // alignment * alignment
    offsets = sorted(t[3] for t in tensors) + [len(data) - data_start]
    for t in tensors:
        nxt = min(o for o in offsets if o > t[3])
        t.append(data[data_start + t[3]:data_start + nxt])
    return kvs, tensors, alignment


def write_gguf(path, kvs, tensors, alignment):
    out = bytearray(struct.pack("<4sIQQ", b"GGUF", 3, len(tensors), len(kvs)))
    for key, t, payload in kvs:
        out += struct.pack("<Q", len(key)) + key + struct.pack("<I", t) + payload
    blob = bytearray()
    for name, ne, t, _, raw in tensors:
        blob += b"\0" * ((-len(blob)) % alignment)
        out += struct.pack("<Q", len(name)) + name + struct.pack("<I", len(ne)) + struct.pack("<" + "Q" * len(ne), *ne)
        out += struct.pack("<IQ", t, len(blob))
        blob += raw
    out += b"\0" * ((-len(out)) % alignment)
    open(path, "wb").write(out + blob)


def split(src, base, n):
    kvs, tensors, alignment = read_gguf(open(src, "rb").read())
    per = (len(tensors) + n - 1) // n
    for i in range(n):
        keys = [(b"split.no", 2, struct.pack("<H", i)), (b"split.count", 2, struct.pack("<H", n)),
                 (b"split.tensors.count", 5, struct.pack("<i", len(tensors)))]
        meta = (kvs if i == 0 else [kv for kv in kvs if kv[0] == b"general.alignment"]) + keys
        write_gguf(f"{base}-{i + 1:05d}-of-{n:05d}.gguf", meta, tensors[i * per:(i + 1) * per], alignment)


if __name__ == "__main__":
    assert sys.argv[1] == "split", "usage: gguf_tool.py split IN.gguf OUT_BASE N"
    split(sys.argv[2], sys.argv[3], int(sys.argv[4]))
