"""onnxq.open and the Model/Tensor API: metadata values and types, the tensor list, the mapping
interface, close(), zero-copy raw() views, split and big-endian models, path types."""

import collections.abc
import gc
import hashlib
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import gguf_tool
import onnxq
from conftest import MANIFEST, ZOO, ZOO_TENSORS, assert_same_bits, expected

ZOO_META = MANIFEST["files"]["zoo.gguf"]["metadata"]
NUMPY_OF = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32, "i32": np.int32,
            "u64": np.uint64, "i64": np.int64, "f32": np.float32, "f64": np.float64, "bool": np.bool_}


def float_bits(value, width):
    return struct.unpack("<I" if width == 4 else "<Q", struct.pack("<f" if width == 4 else "<d", value))[0]


@pytest.fixture(scope="module")
def zoo():
    with onnxq.open(ZOO) as m:
        yield m


def test_metadata_values_and_types(zoo):
    md = zoo.metadata
    assert list(md) == [kv["key"] for kv in ZOO_META], "every key, in file order"
    for kv in ZOO_META:
        got, t = md[kv["key"]], kv["type"]
        if t == "arr":
            if kv["arr_type"] == "str":
                assert got == kv["values"], kv["key"]
                continue
            assert isinstance(got, np.ndarray) and got.dtype == NUMPY_OF[kv["arr_type"]], kv["key"]
            assert got.shape == (kv["count"],)
            if "bits" in kv:
                assert got.view({4: np.uint32, 8: np.uint64}[got.itemsize]).tolist() == \
                    [int(b, 16) for b in kv["bits"]], kv["key"]
            else:
                want = [int(v) for v in kv["values_str"]] if "values_str" in kv else kv["values"]
                assert got.tolist() == want, kv["key"]
        elif t == "str":
            assert got == kv["value"] and type(got) is str
        elif t == "bool":
            assert got is kv["value"]
        elif t in ("f32", "f64"):
            assert type(got) is float
            assert float_bits(got, 4 if t == "f32" else 8) == int(kv["bits"], 16), kv["key"]
        else:
            assert type(got) is int and got == int(kv.get("value_str", kv["value"])), kv["key"]
    assert zoo.metadata is md, "read once, then kept"


def test_tensor_list(zoo):
    assert [t.name for t in zoo.tensors] == [e["name"] for e in ZOO_TENSORS]
    for t, e in zip(zoo.tensors, ZOO_TENSORS):
        assert isinstance(t, onnxq.TensorInfo) and isinstance(t, onnxq.Tensor)
        assert (t.type, t.ggml_type, t.ne, t.shape) == (e["type"], e["type_id"], tuple(e["ne"]), tuple(e["onnx_shape"]))
        assert (t.nbytes, t.offset, t.n_elements, t.shard) == (e["nbytes"], e["file_offset"], e["n_elements"], 0)
        assert t.format == (None if e["type"] in ("F32", "F16", "BF16", "F64", "I8", "I16", "I32", "I64")
                            else "gguf:" + e["type"].lower())
    assert repr(zoo["q4_k.weight"]) == "<onnxq.Tensor 'q4_k.weight' Q4_K shape=(3, 512)>"


def test_mapping_interface(zoo):
    assert len(zoo) == len(ZOO_TENSORS)
    assert list(zoo) == zoo.keys() == [e["name"] for e in ZOO_TENSORS]
    assert "q8_0.weight" in zoo and "nope" not in zoo and 3 not in zoo
    assert zoo["q8_0.weight"].name == "q8_0.weight"
    with pytest.raises(KeyError, match="no tensor named 'nope'"):
        zoo["nope"]
    # A real Mapping: Mapping's protocol, the same Tensor objects as the list, found by lookup.
    assert isinstance(zoo, collections.abc.Mapping)
    assert zoo.get("nope") is None and zoo.get("nope", 5) == 5
    assert zoo.get("q8_0.weight") is zoo["q8_0.weight"] is zoo.tensors[zoo.keys().index("q8_0.weight")]
    assert [name for name, _ in zoo.items()] == zoo.keys()
    assert [t.name for t in zoo.values()] == zoo.keys()
    assert dict(zoo)["q4_k.weight"].type == "Q4_K"
    assert zoo.path == str(ZOO) and zoo.shards == (str(ZOO),) and zoo.missing_shards == ()


def test_raw_is_a_zero_copy_view_that_keeps_the_file_alive():
    m = onnxq.open(ZOO)
    t = m["q4_0.weight"]
    r = t.raw()
    entry = ZOO_TENSORS[0]
    assert r.dtype == np.uint8 and r.shape == (3, 512 // 32 * 18)
    assert not r.flags.owndata and r.base is not None, "a view, not a copy"
    assert not r.flags.writeable, "the mapping is read-only"
    assert np.shares_memory(r, t.raw()), "two calls view the same memory"
    assert np.shares_memory(r, m["q4_1.weight"].raw()) is False
    with pytest.raises(ValueError):
        r[0, 0] = 1
    del m, t
    gc.collect()
    assert hashlib.sha256(r.tobytes()).hexdigest() == entry["raw_sha256"], "still readable after the model is gone"


def test_close_and_context_manager():
    with onnxq.open(ZOO) as m:
        t = m["f16.weight"]
        r = t.raw()
        first = t.numpy()
    assert m.closed and "closed" in repr(m)
    with pytest.raises(ValueError, match="the model is closed"):
        t.numpy()
    with pytest.raises(ValueError, match="the model is closed"):
        m.metadata
    assert t.name == "f16.weight" and t.shape == first.shape, "descriptors stay readable"
    assert_same_bits(quants_f16(r), first, "raw view after close")


def quants_f16(raw):
    return raw.view(np.float16).astype(np.float32)


def test_paths_str_bytes_pathlike():
    for p in (str(ZOO), os.fsencode(ZOO), Path(ZOO)):
        with onnxq.open(p) as m:
            assert len(m) == len(ZOO_TENSORS)


def test_split_model_reads_every_shard(tmp_path):
    gguf_tool.split(ZOO, str(tmp_path / "zoo"), 3)
    first = tmp_path / "zoo-00001-of-00003.gguf"
    with onnxq.open(first) as m:
        assert len(m.shards) == 3 and [t.name for t in m.tensors] == [e["name"] for e in ZOO_TENSORS]
        assert {t.shard for t in m.tensors} == {0, 1, 2}
        for e in ZOO_TENSORS:
            t = m[e["name"]]
            want = expected(e) if "expected_native" not in e else m[e["name"]].numpy()
            assert_same_bits(t.numpy(), want, e["name"])
            assert hashlib.sha256(t.raw().tobytes()).hexdigest() == e["raw_sha256"]
    (tmp_path / "zoo-00002-of-00003.gguf").unlink()
    with pytest.raises(FileNotFoundError, match="missing shard 2 of 3"):
        onnxq.open(first)
    with onnxq.open(first, shards="allow_missing") as m:
        assert m.missing_shards == (2,) and len(m.shards) == 2
    with onnxq.open(first, shards="only_this_file") as m:
        assert len(m.shards) == 1 and 0 < len(m) < len(ZOO_TENSORS)


def test_big_endian_model_decodes_the_same(tmp_path):
    path = tmp_path / "zoo-be.gguf"
    path.write_bytes(gguf_tool.to_big_endian(ZOO.read_bytes()))
    with onnxq.open(path) as be, onnxq.open(ZOO) as le:
        assert list(be.metadata) == list(le.metadata)
        for key, value in le.metadata.items():
            if isinstance(value, np.ndarray):
                assert value.dtype == be.metadata[key].dtype and value.tolist() == be.metadata[key].tolist(), key
            else:
                assert be.metadata[key] == value or (value != value and be.metadata[key] != be.metadata[key]), key
        for t in le.tensors:
            for dtype in (None, "float16"):
                assert_same_bits(be[t.name].numpy(dtype), t.numpy(dtype), f"{t.name} {dtype}")
        # raw() is the bytes as stored: a big-endian file's F16 words are swapped
        assert be["f16.weight"].raw().tobytes() != le["f16.weight"].raw().tobytes()
        assert np.array_equal(be["f16.weight"].raw().view(">f2"), le["f16.weight"].raw().view("<f2"))


def test_nested_arrays_and_undecodable_strings(tmp_path):
    def text(b):
        return struct.pack("<Q", len(b)) + b

    nested = struct.pack("<IQ", 9, 2) + struct.pack("<IQ", 5, 2) + struct.pack("<ii", 1, -2) + \
        struct.pack("<IQ", 8, 1) + text(b"x")
    kvs = [(b"general.architecture", 8, text(b"llama")), (b"nested", 9, nested), (b"latin1", 8, text(b"caf\xe9")),
           (b"empty_nested", 9, struct.pack("<IQ", 9, 0))]
    tensors = [[b"w", (32,), 0, 0, np.arange(32, dtype="<f4").tobytes()]]
    path = tmp_path / "nested.gguf"
    gguf_tool.write_gguf(str(path), kvs, tensors, 32)
    with onnxq.open(path) as m:
        md = m.metadata
        assert isinstance(md["nested"], list) and len(md["nested"]) == 2
        assert md["nested"][0].dtype == np.int32 and md["nested"][0].tolist() == [1, -2]
        assert md["nested"][1] == ["x"]
        assert md["empty_nested"] == []
        assert md["latin1"] == "caf\udce9" and md["latin1"].encode("utf-8", "surrogateescape") == b"caf\xe9"
        assert m["w"].numpy().tolist() == list(range(32))
