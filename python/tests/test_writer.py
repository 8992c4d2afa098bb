"""onnxq.edit and onnxq.convert_endian: files read back with gguf_tool.py (independent of onnxq),
tensors byte for byte, errors as Python exceptions."""

import shutil
import struct

import numpy as np
import pytest

import gguf_tool
import onnxq
from conftest import ZOO


def read(path):
    return gguf_tool.read_gguf(open(path, "rb").read())


def metadata(path):
    kvs, _, _ = read(path)
    return {key.decode(): (t, payload) for key, t, payload in kvs}


def tensors(path):
    _, ts, _ = read(path)
    return [(t[0], t[1], t[2], t[4]) for t in ts]


def test_edit_sets_removes_renames_and_keeps_tensors(tmp_path):
    out = tmp_path / "out.gguf"
    onnxq.edit(ZOO, out, set={"general.name": "renamed", "test.uint16": 7, "new.u32": ("u32", 5),
                              "new.floats": [1.5, 2], "new.strs": ("arr:str", ["a", "b"])},
               remove=["test.int16"], rename={"test.int8": "other.int8"}, chat_template="{{ x }}")
    md = metadata(out)
    assert md["general.name"] == (8, struct.pack("<Q", 7) + b"renamed")
    assert md["test.uint16"] == (2, struct.pack("<H", 7))
    assert md["new.u32"] == (4, struct.pack("<I", 5))
    assert md["new.floats"] == (9, struct.pack("<IQff", 6, 2, 1.5, 2.0))
    assert md["new.strs"] == (9, struct.pack("<IQ", 8, 2) + struct.pack("<Q", 1) + b"a" + struct.pack("<Q", 1) + b"b")
    assert md["tokenizer.chat_template"] == (8, struct.pack("<Q", 7) + b"{{ x }}")
    assert "test.int16" not in md and "test.int8" not in md and "other.int8" in md
    assert tensors(out) == tensors(ZOO)


def test_edit_takes_what_onnxq_edit_takes(tmp_path):
    """Globs, JSON values, special tokens and a chat template file, as `onnxq edit` takes them."""
    template = tmp_path / "template.txt"
    template.write_text("tmpl {{ x }}\n")
    out = tmp_path / "out.gguf"
    onnxq.edit(ZOO, out, remove=["test.array_u*"], set_json={"test.array_int32": "[5, -6]", "added.f32s": "f32:[1.5, 2]"},
               chat_template_file=template)
    with onnxq.open(out) as m:
        md = m.metadata
        assert not any(k.startswith("test.array_u") for k in md)
        assert md["test.array_int32"].tolist() == [5, -6] and md["test.array_int32"].dtype == np.int32
        assert md["added.f32s"].tolist() == [1.5, 2.0] and md["added.f32s"].dtype == np.float32
        assert md["tokenizer.chat_template"] == "tmpl {{ x }}\n"
    with pytest.raises(ValueError, match="^set_json added: the array mixes str and bool elements"):
        onnxq.edit(ZOO, out, set_json={"added": '["a", true]'})
    with pytest.raises(ValueError, match="^special_tokens bos: the file has no tokenizer.ggml.tokens"):
        onnxq.edit(ZOO, out, special_tokens={"bos": "<s>"})
    onnxq.edit(ZOO, out, special_tokens={"bos": 3})
    with onnxq.open(out) as m:
        assert m.metadata["tokenizer.ggml.bos_token_id"] == 3


def test_edit_in_place(tmp_path):
    path = tmp_path / "m.gguf"
    shutil.copy(ZOO, path)
    onnxq.edit(path, None, set={"general.name": "in place"})
    assert metadata(path)["general.name"][1].endswith(b"in place")
    assert tensors(path) == tensors(ZOO)


def test_convert_endian_round_trip(tmp_path):
    big, little = tmp_path / "be.gguf", tmp_path / "le.gguf"
    onnxq.convert_endian(ZOO, big, to="big")
    assert big.read_bytes() == gguf_tool.to_big_endian(ZOO.read_bytes())
    onnxq.convert_endian(big, little, to="little")
    assert little.read_bytes() == ZOO.read_bytes()


def test_errors(tmp_path):
    out = tmp_path / "x.gguf"
    with pytest.raises(ValueError, match="does not fit a u8"):
        onnxq.edit(ZOO, out, set={"test.uint8": 256})
    with pytest.raises(TypeError, match="expected a str"):
        onnxq.edit(ZOO, out, set={"general.name": 5})
    with pytest.raises(KeyError):
        onnxq.edit(ZOO, out, remove=["no.such.key"])
    with pytest.raises(ValueError, match="one of the input files"):
        onnxq.edit(ZOO, ZOO, set={"general.name": "x"})
    # What the reader would refuse, the writer refuses, naming the key.
    with pytest.raises(ValueError, match=r"^metadata key \d+ is empty, expected at least 1 byte$"):
        onnxq.edit(ZOO, out, rename={"general.name": ""})
    with pytest.raises(ValueError, match="^metadata key 'k+'... is 65536 bytes long"):
        onnxq.edit(ZOO, out, set={"k" * 65536: "x"})
    with pytest.raises(ValueError, match="^general.alignment has type i32, expected u32$"):
        onnxq.edit(ZOO, out, set={"general.alignment": 48})
    with pytest.raises(ValueError, match="already exists"):
        onnxq.edit(ZOO, out, rename={"general.name": "general.architecture"})
    with pytest.raises(ValueError, match="'big', 'little' or 'native'"):
        onnxq.convert_endian(ZOO, out, to="middle")
    with pytest.raises(FileNotFoundError):
        onnxq.convert_endian(tmp_path / "missing.gguf", out, to="big")
    assert not out.exists()
