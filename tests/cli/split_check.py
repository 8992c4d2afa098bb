"""Test helper for split_merge.sh, independent of onnxq: checks gguf-split shards against the file
they were split from, read with gguf_tool.py.

split_check.py shards ORIG [--max-bytes N] SHARD...   every shard carries split.no (u16, its index),
    split.count (u16) and split.tensors.count (i32, the total); the first holds ORIG's metadata, the
    others nothing else (general.alignment aside); the shards' tensors in order are ORIG's (names,
    shapes, types, bytes); with --max-bytes, a shard past N bytes holds exactly one tensor
"""
import importlib.util
import os
import struct
import sys

spec = importlib.util.spec_from_file_location("gguf_tool", os.path.join(os.path.dirname(__file__), "gguf_tool.py"))
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)

SPLIT_KEYS = {b"split.no", b"split.count", b"split.tensors.count"}
IGNORED = {b"onnxq.header_padding"}


def read(path):
    return tool.read_gguf(open(path, "rb").read())


def shards(orig, paths, max_bytes):
    kv, tensors, _ = read(orig)
    kv = [x for x in kv if x[0] not in IGNORED]
    got = []
    for i, path in enumerate(paths):
        skv, st, _ = read(path)
        keys = {k: (t, p) for k, t, p in skv}
        assert keys.get(b"split.no") == (2, struct.pack("<H", i)), "%s: split.no" % path
        assert keys.get(b"split.count") == (2, struct.pack("<H", len(paths))), "%s: split.count" % path
        assert keys.get(b"split.tensors.count") == (5, struct.pack("<i", len(tensors))), \
            "%s: split.tensors.count" % path
        rest = [x for x in skv if x[0] not in SPLIT_KEYS]
        if i == 0:
            assert rest == kv, "%s: metadata differs from %s" % (path, orig)
        else:
            assert all(k == b"general.alignment" for k, _, _ in rest), "%s: metadata beyond split.*" % path
        if max_bytes is not None and os.path.getsize(path) > max_bytes:
            assert len(st) == 1, "%s: %d bytes, past the limit with %d tensors" % (path, os.path.getsize(path), len(st))
        got += st
    assert [t[:3] for t in got] == [t[:3] for t in tensors], "tensor lists differ"
    for x, y in zip(tensors, got):
        n = min(len(x[4]), len(y[4]))
        assert x[4][:n] == y[4][:n], "tensor %s differs" % x[0].decode()


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] != "shards":
        sys.exit("unknown command " + args[0])
    max_bytes = None
    rest = args[2:]
    if rest and rest[0] == "--max-bytes":
        max_bytes = int(rest[1])
        rest = rest[2:]
    try:
        shards(args[1], rest, max_bytes)
    except AssertionError as e:
        sys.exit("split_check: %s" % e)
