"""Test helper for the GGUF writers' tests, independent of onnxq: compares little-endian GGUF files
read with gguf_tool.py.

gguf_compare.py tensors A B             the same tensors (names, shapes, types, bytes) in the same order
gguf_compare.py meta A B [CHANGES]      B's metadata is A's with CHANGES (JSON): {"set": {key: [type, value]},
                                        "removed": [keys], "renamed": {old: new}}, order kept, new keys last;
                                        an array value is [element type, [values]]; onnxq.header_padding ignored
gguf_compare.py findings A.json B.json  onnxq check --json outputs: B has no finding (severity, code) A lacks
gguf_compare.py data-offset F           prints F's data offset
"""
import importlib.util
import json
import os
import struct
import sys

spec = importlib.util.spec_from_file_location("gguf_tool", os.path.join(os.path.dirname(__file__), "gguf_tool.py"))
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)

PADDING_KEY = b"onnxq.header_padding"


def read(path):
    return tool.read_gguf(open(path, "rb").read())


FORMATS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def encode(t, v):
    if t == 8:
        b = v.encode()
        return struct.pack("<Q", len(b)) + b
    if t == 9:
        et, values = v
        return struct.pack("<IQ", et, len(values)) + b"".join(encode(et, x) for x in values)
    return struct.pack("<" + FORMATS[t], v)


def tensors_equal(a, b):
    _, ta, _ = read(a)
    _, tb, _ = read(b)
    sizes_a = [(t[0], t[1], t[2]) for t in ta]
    sizes_b = [(t[0], t[1], t[2]) for t in tb]
    assert sizes_a == sizes_b, "tensor lists differ"
    for x, y in zip(ta, tb):
        # raw runs to the next tensor: the tensor's bytes, then padding (the shorter length is the tensor's)
        n = min(len(x[4]), len(y[4]))
        assert x[4][:n] == y[4][:n], "tensor %s differs" % x[0].decode()


def meta_equal(a, b, changes):
    ka, _, _ = read(a)
    kb, _, _ = read(b)
    kb = [kv for kv in kb if kv[0] != PADDING_KEY]
    expected = []
    sets = {k.encode(): (t, encode(t, v)) for k, (t, v) in changes.get("set", {}).items()}
    removed = {k.encode() for k in changes.get("removed", [])}
    renamed = {k.encode(): v.encode() for k, v in changes.get("renamed", {}).items()}
    for key, t, payload in ka:
        if key == PADDING_KEY or key in removed:
            continue
        key = renamed.get(key, key)
        if key in sets:
            t, payload = sets.pop(key)
        expected.append((key, t, payload))
    for key, (t, payload) in sets.items():
        expected.append((key, t, payload))
    if kb != expected:
        for x, y in zip(kb, expected):
            if x != y:
                print("first difference:", x[:2], x[2][:40], "expected", y[:2], y[2][:40], file=sys.stderr)
                break
        print(len(kb), "records, expected", len(expected), file=sys.stderr)
        sys.exit(1)


def findings(a, b):
    def keyed(path):
        return sorted((f["severity"], f["code"]) for f in json.load(open(path))["findings"])

    before, after = keyed(a), keyed(b)
    new = list(after)
    for f in before:
        if f in new:
            new.remove(f)
    assert not new, "new findings: %s" % new


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "tensors":
        tensors_equal(sys.argv[2], sys.argv[3])
    elif cmd == "meta":
        meta_equal(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]) if len(sys.argv) > 4 else {})
    elif cmd == "findings":
        findings(sys.argv[2], sys.argv[3])
    elif cmd == "data-offset":
        data = open(sys.argv[2], "rb").read()
        kvs, tensors, alignment = read(sys.argv[2])
        print(len(data) - sum(len(t[4]) for t in tensors))
    else:
        sys.exit("unknown command " + cmd)
