"""Test helper: read and write little-endian GGUF v3 files, independent of onnxq's reader.

As a module: read_gguf(bytes) -> (kvs, tensors [name, ne, type, offset, raw bytes], alignment),
write_gguf(path, kvs, tensors, alignment, pad_header=True).
As a script: gguf_tool.py split IN.gguf OUT_BASE N  ->  OUT_BASE-00001-of-0000N.gguf ...
(shard 1 keeps all metadata; every shard gets split.no / split.count / split.tensors.count).
gguf_tool.py big-endian IN.gguf OUT.gguf [GGUF|FUGG]: the file as llama.cpp's
gguf_convert_endian.py writes it (magic GGUF with a swapped version, or FUGG), with onnxq's
documented rule for the block formats that converter refuses.
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


def write_gguf(path, kvs, tensors, alignment, pad_header=True):
    """pad_header=False with no tensors: the file ends right after its metadata, as gguf-py's writer
    leaves a vocab-only file (header and metadata written, then closed)."""
    out = bytearray(struct.pack("<4sIQQ", b"GGUF", 3, len(tensors), len(kvs)))
    for key, t, payload in kvs:
        out += struct.pack("<Q", len(key)) + key + struct.pack("<I", t) + payload
    blob = bytearray()
    for name, ne, t, _, raw in tensors:
        blob += b"\0" * ((-len(blob)) % alignment)
        out += struct.pack("<Q", len(name)) + name + struct.pack("<I", len(ne)) + struct.pack("<" + "Q" * len(ne), *ne)
        out += struct.pack("<IQ", t, len(blob))
        blob += raw
    if tensors or pad_header:
        out += b"\0" * ((-len(out)) % alignment)
    open(path, "wb").write(out + blob)


# ggml type -> (block elements, block bytes, [(offset, bytes, word size)] of the block's numbers
# that a big-endian file stores big-endian). Typed from ggml's block structs. The converter itself
# swaps Q4_0/Q8_0 d, Q4_K d and dmin, Q6_K d, and leaves MXFP4 alone; for the others onnxq's rule
# is the same one extended: every binary16/binary32 scale and int16 sum (iq1_m: its four
# uint16 scale words), never packed quants or bit fields.
BLOCKS = {
    2: (32, 18, [(0, 2, 2)]), 3: (32, 20, [(0, 4, 2)]), 6: (32, 22, [(0, 2, 2)]), 7: (32, 24, [(0, 4, 2)]),
    8: (32, 34, [(0, 2, 2)]), 9: (32, 36, [(0, 4, 2)]),
    10: (256, 84, [(80, 4, 2)]), 11: (256, 110, [(108, 2, 2)]), 12: (256, 144, [(0, 4, 2)]),
    13: (256, 176, [(0, 4, 2)]), 14: (256, 210, [(208, 2, 2)]), 15: (256, 292, [(0, 4, 4), (260, 32, 2)]),
    16: (256, 66, [(0, 2, 2)]), 17: (256, 74, [(0, 2, 2)]), 18: (256, 98, [(0, 2, 2)]), 19: (256, 50, [(0, 2, 2)]),
    20: (32, 18, [(0, 2, 2)]), 21: (256, 110, [(0, 2, 2)]), 22: (256, 82, [(0, 2, 2)]), 23: (256, 136, [(0, 2, 2)]),
    29: (256, 56, [(48, 8, 2)]), 34: (256, 54, [(52, 2, 2)]), 35: (256, 66, [(64, 2, 2)]),
    39: (32, 17, []), 40: (64, 36, []), 41: (128, 18, [(0, 2, 2)]), 42: (64, 18, [(0, 2, 2)]),
}
PLAIN = {0: 4, 1: 2, 30: 2, 28: 8, 24: 1, 25: 2, 26: 4, 27: 8}  # element bytes of F32, F16, BF16, F64, I8..I64


def swap_words(buf, at, nbytes, width):
    for i in range(at, at + nbytes, width):
        buf[i:i + width] = buf[i:i + width][::-1]


def to_big_endian(data, magic=b"GGUF", opaque=()):
    """The little-endian GGUF v3 file `data` converted in place to big-endian (same layout). The data
    of tensors whose type is in `opaque` (types the tool has no layout for) is left as it is."""
    buf = bytearray(data)
    pos = 0

    def num(width):  # swaps the number at pos, returns its little-endian value
        nonlocal pos
        v = int.from_bytes(buf[pos:pos + width], "little")
        swap_words(buf, pos, width, width)
        pos += width
        return v

    def value(t):
        nonlocal pos
        if t == 8:
            n = num(8)  # (not `pos += num(8)`: that would add to the old pos)
            pos += n
        elif t == 9:
            et, n = num(4), num(8)
            for _ in range(n):
                value(et)
        else:
            num(SIZES[t])

    assert buf[0:4] == b"GGUF"
    buf[0:4] = magic
    pos = 4
    num(4)
    n_tensors, n_kv = num(8), num(8)
    alignment = 32
    for _ in range(n_kv):
        key = bytes(buf[pos + 8:pos + 8 + int.from_bytes(buf[pos:pos + 8], "little")])
        n = num(8)
        pos += n
        t = num(4)
        if key == b"general.alignment":
            alignment = int.from_bytes(buf[pos:pos + 4], "little")
        value(t)
    tensors = []
    for _ in range(n_tensors):
        n = num(8)
        pos += n
        ne = [num(8) for _ in range(num(4))]
        t, off = num(4), num(8)
        tensors.append((ne, t, off))
    data_start = (pos + alignment - 1) // alignment * alignment
    for ne, t, off in tensors:
        count = 1
        for d in ne:
            count *= d
        at = data_start + off
        if t in opaque:
            continue
        if t in PLAIN:
            swap_words(buf, at, count * PLAIN[t], PLAIN[t])
            continue
        qk, size, fields = BLOCKS[t]
        for b in range(count // qk):
            for f_off, f_bytes, width in fields:
                swap_words(buf, at + b * size + f_off, f_bytes, width)
    return bytes(buf)


def split(src, base, n):
    kvs, tensors, alignment = read_gguf(open(src, "rb").read())
    per = (len(tensors) + n - 1) // n
    for i in range(n):
        keys = [(b"split.no", 2, struct.pack("<H", i)), (b"split.count", 2, struct.pack("<H", n)),
                 (b"split.tensors.count", 5, struct.pack("<i", len(tensors)))]
        meta = (kvs if i == 0 else [kv for kv in kvs if kv[0] == b"general.alignment"]) + keys
        write_gguf(f"{base}-{i + 1:05d}-of-{n:05d}.gguf", meta, tensors[i * per:(i + 1) * per], alignment)


if __name__ == "__main__":
    if sys.argv[1] == "big-endian":
        magic = sys.argv[4].encode() if len(sys.argv) > 4 else b"GGUF"
        open(sys.argv[3], "wb").write(to_big_endian(open(sys.argv[2], "rb").read(), magic))
    elif sys.argv[1] == "add-key":  # IN OUT KEY: a u32 key of those bytes (\\xNN escapes) appended, = 7
        kvs, tensors, alignment = read_gguf(open(sys.argv[2], "rb").read())
        key = sys.argv[4].encode("latin-1").decode("unicode_escape").encode("latin-1")
        write_gguf(sys.argv[3], kvs + [(key, 4, struct.pack("<I", 7))], tensors, alignment)
    else:
        assert sys.argv[1] == "split", ("usage: gguf_tool.py split IN.gguf OUT_BASE N | big-endian IN OUT [GGUF|FUGG] | "
                                        "add-key IN OUT KEY")
        split(sys.argv[2], sys.argv[3], int(sys.argv[4]))
