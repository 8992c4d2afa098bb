"""onnxq.split and onnxq.merge: shards read back with gguf_tool.py (independent of onnxq), the
split.* keys, tensors in order byte for byte, merge giving the file back, errors as exceptions."""

import os
import struct

import pytest

import gguf_tool
import onnxq
from conftest import ZOO


def read(path):
    return gguf_tool.read_gguf(open(path, "rb").read())


def keys(path):
    kvs, _, _ = read(path)
    return {key.decode(): (t, payload) for key, t, payload in kvs}


def tensor_names(path):
    _, ts, _ = read(path)
    return [t[0] for t in ts]


@pytest.fixture
def zoo(tmp_path):
    """The zoo model as onnxq's writer lays it out (ggml's layout), so that merge gives it back."""
    path = tmp_path / "zoo.gguf"
    onnxq.edit(ZOO, path)
    return path


def test_split_by_count_and_merge_back(zoo, tmp_path):
    paths = onnxq.split(zoo, tmp_path / "p", max_tensors=10)
    assert [os.path.basename(p) for p in paths] == ["p-%05d-of-00004.gguf" % i for i in range(1, 5)]
    names = []
    for i, p in enumerate(paths):
        k = keys(p)
        assert k["split.no"] == (2, struct.pack("<H", i))
        assert k["split.count"] == (2, struct.pack("<H", 4))
        assert k["split.tensors.count"] == (5, struct.pack("<i", 38))
        assert ("general.architecture" in k) == (i == 0)
        names += tensor_names(p)
    assert names == tensor_names(zoo)
    out = tmp_path / "merged.gguf"
    assert onnxq.merge(paths[2], out) == str(out)
    assert out.read_bytes() == zoo.read_bytes()


def test_split_by_size_counts_whole_files(zoo, tmp_path):
    paths = onnxq.split(zoo, tmp_path / "s", max_size=5000, no_tensor_first_split=True)
    assert len(read(paths[0])[1]) == 0
    for p in paths[1:]:
        assert os.path.getsize(p) <= 5000 or len(read(p)[1]) == 1


def test_errors(zoo, tmp_path):
    with pytest.raises(ValueError, match="one limit"):
        onnxq.split(zoo, tmp_path / "p")
    with pytest.raises(ValueError, match="one limit"):
        onnxq.split(zoo, tmp_path / "p", max_size=100, max_tensors=2)
    paths = onnxq.split(zoo, tmp_path / "p", max_tensors=20)
    before = open(paths[1], "rb").read()
    with pytest.raises(ValueError, match="the name is a shard's"):
        onnxq.merge(paths[0], paths[1])
    with pytest.raises(ValueError, match="one of the input files"):
        onnxq.split(paths[0], tmp_path / "p", max_tensors=20)
    assert open(paths[1], "rb").read() == before
    os.remove(paths[1])
    with pytest.raises(FileNotFoundError, match="p-00002-of-00002.gguf"):
        onnxq.merge(paths[0], tmp_path / "m.gguf")
    assert not (tmp_path / "m.gguf").exists()
