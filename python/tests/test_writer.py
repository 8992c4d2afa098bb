"""onnxq.edit and onnxq.convert_endian: files read back with gguf_tool.py (independent of onnxq),
tensors byte for byte, errors as Python exceptions."""

import json
import math
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import gguf_tool
import onnxq
from conftest import ZOO

CLI = Path(os.environ.get("ONNXQ_BUILD_DIR", Path(__file__).resolve().parents[2] / "build")) / "onnxq"


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


def test_set_types_values_as_set_json_does(tmp_path):
    """set= goes through the library's edit plan: the same types as the JSON of set_json, and the floats
    JSON cannot say."""
    values = {"new.i32": 5, "new.i64": -2**40, "new.u64": 2**64 - 1, "new.f32": 0.1, "new.bool": True,
              "new.str": "s", "new.mixed": [1, 2.5], "new.wide": [1, 2**40], "test.uint16": 9,
              "test.array_int32": [3, -4], "new.typed": ("u16", 7), "new.typed_arr": ("arr:i8", [-1, 2])}
    by_set, by_json = tmp_path / "set.gguf", tmp_path / "json.gguf"
    onnxq.edit(ZOO, by_set, set=values)
    as_json = {k: (f"{v[0].removeprefix('arr:')}:{json.dumps(v[1])}" if isinstance(v, tuple) else json.dumps(v))
               for k, v in values.items()}
    onnxq.edit(ZOO, by_json, set_json=as_json)
    assert metadata(by_set) == metadata(by_json)
    md = metadata(by_set)
    assert md["new.i32"] == (5, struct.pack("<i", 5)) and md["new.i64"] == (11, struct.pack("<q", -2**40))
    assert md["new.u64"] == (10, struct.pack("<Q", 2**64 - 1)) and md["new.f32"] == (6, struct.pack("<f", 0.1))
    assert md["new.mixed"] == (9, struct.pack("<IQff", 6, 2, 1.0, 2.5))
    assert md["new.wide"] == (9, struct.pack("<IQqq", 11, 2, 1, 2**40))
    assert md["new.typed"] == (2, struct.pack("<H", 7)) and md["new.typed_arr"] == (9, struct.pack("<IQbb", 1, 2, -1, 2))
    onnxq.edit(ZOO, by_set, set={"new.nan": float("nan"), "new.inf": ("f64", -math.inf)})
    md = metadata(by_set)
    assert md["new.nan"][0] == 6 and math.isnan(struct.unpack("<f", md["new.nan"][1])[0])
    assert md["new.inf"] == (12, struct.pack("<d", -math.inf))
    with pytest.raises(ValueError, match="^set new.x: expected a list for arr:f32, got 1.5$"):
        onnxq.edit(ZOO, by_set, set={"new.x": ("arr:f32", 1.5)})
    with pytest.raises(ValueError, match="^set new.x: unknown type 'u7'"):
        onnxq.edit(ZOO, by_set, set={"new.x": ("u7", 1)})
    with pytest.raises(ValueError, match="^set new.x: an empty array needs a type"):
        onnxq.edit(ZOO, by_set, set={"new.x": []})
    with pytest.raises(ValueError, match="^set new.x: the array mixes str and i32 elements"):
        onnxq.edit(ZOO, by_set, set={"new.x": ["a", 1]})
    with pytest.raises(ValueError, match="does not fit 64 bits"):
        onnxq.edit(ZOO, by_set, set={"new.x": 2**64})
    with pytest.raises(TypeError, match="^set new.x: a NoneType has no GGUF type$"):
        onnxq.edit(ZOO, by_set, set={"new.x": None})
    with pytest.raises(ValueError, match="^metadata key 'new.x' holds an array of arrays, which ggml's reader"):
        onnxq.edit(ZOO, by_set, set={"new.x": [[1], [2]]})


def test_dry_run_lists_the_changes_as_onnxq_edit_does(tmp_path):
    """dry_run=True returns the changes `onnxq edit --dry-run` prints, in its order, and writes nothing;
    an edit that writes returns the same list."""
    out = tmp_path / "out.gguf"
    kwargs = dict(set={"test.uint8": 1, "new.b": ("bool", True)}, remove=["test.int16"],
                  rename={"test.int8": "other.int8"}, set_json={"new.f": "[1.5]"})
    changes = onnxq.edit(ZOO, out, dry_run=True, **kwargs)
    assert not out.exists()
    cli = subprocess.run([str(CLI), "edit", str(ZOO), "--dry-run", "--set", "test.uint8=1", "--set", "new.b=bool:true",
                          "--remove", "test.int16", "--rename", "test.int8=other.int8", "--set-json", "new.f=[1.5]"],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    shown = {"add": "add     {}: {}", "set": "set     {}: {}", "remove": "remove  {} (was {})", "rename": "rename  {} -> {}"}
    assert [shown[kind].format(key, detail) for kind, key, detail in changes] == cli[:-1]
    assert [kind for kind, _, _ in changes] == ["remove", "rename", "set", "add", "add"]
    assert onnxq.edit(ZOO, out, **kwargs) == changes and out.exists()


def test_a_key_that_is_not_ascii_is_read_and_can_be_removed_or_renamed(tmp_path):
    """The GGUF specification wants ASCII keys: the reader takes a file with another, the writer
    refuses to write it, and an edit that removes or renames it mends the file."""
    kvs, infos, alignment = gguf_tool.read_gguf(ZOO.read_bytes())
    src = tmp_path / "accent.gguf"
    gguf_tool.write_gguf(src, kvs + [("modèle".encode(), 4, struct.pack("<I", 7))], infos, alignment)
    assert onnxq.open(src).metadata["modèle"] == 7
    with pytest.raises(ValueError, match=r"'mod\\xc3\\xa8le' is not ASCII \(byte 3\)"):
        onnxq.edit(src, tmp_path / "x.gguf", set={"general.name": "x"})
    assert not (tmp_path / "x.gguf").exists()
    assert onnxq.edit(src, tmp_path / "r.gguf", remove=["mod*"])[0][:2] == ("remove", "modèle")
    assert "modèle" not in onnxq.open(tmp_path / "r.gguf").metadata
    onnxq.edit(src, tmp_path / "n.gguf", rename={"modèle": "model"})
    assert onnxq.open(tmp_path / "n.gguf").metadata["model"] == 7
    assert tensors(tmp_path / "n.gguf") == tensors(ZOO)


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
    with pytest.raises(ValueError, match="^set general.name: expected a string, got 5$"):
        onnxq.edit(ZOO, out, set={"general.name": 5})
    with pytest.raises(KeyError):
        onnxq.edit(ZOO, out, remove=["no.such.key"])
    with pytest.raises(ValueError, match="one of the input files"):
        onnxq.edit(ZOO, ZOO, set={"general.name": "x"})
    # What the reader would refuse, the writer refuses, naming the key; a dry run refuses it alike.
    for dry_run in (False, True):
        with pytest.raises(ValueError, match=r"^metadata key \d+ is empty, expected at least 1 byte$"):
            onnxq.edit(ZOO, out, rename={"general.name": ""}, dry_run=dry_run)
        with pytest.raises(ValueError, match="^metadata key 'k+'... is 65536 bytes long"):
            onnxq.edit(ZOO, out, set={"k" * 65536: "x"}, dry_run=dry_run)
        with pytest.raises(ValueError, match="^general.alignment has type i32, expected u32$"):
            onnxq.edit(ZOO, out, set={"general.alignment": 48}, dry_run=dry_run)
        with pytest.raises(ValueError, match="^general.alignment is 48, expected a power of two$"):
            onnxq.edit(ZOO, out, set={"general.alignment": ("u32", 48)}, dry_run=dry_run)
        with pytest.raises(ValueError, match="already exists"):
            onnxq.edit(ZOO, out, rename={"general.name": "general.architecture"}, dry_run=dry_run)
        with pytest.raises(ValueError, match="^metadata key 'added.nested' holds an array of arrays, which ggml's reader"):
            onnxq.edit(ZOO, out, set_json={"added.nested": "[[1, 2], [3]]"}, dry_run=dry_run)
        with pytest.raises(ValueError, match=r"^metadata key 32 'mod\\xc3\\xa8le' is not ASCII \(byte 3\), as the GGUF"):
            onnxq.edit(ZOO, out, set={"modèle": 1}, dry_run=dry_run)
    with pytest.raises(ValueError, match="'big', 'little' or 'native'"):
        onnxq.convert_endian(ZOO, out, to="middle")
    with pytest.raises(FileNotFoundError):
        onnxq.convert_endian(tmp_path / "missing.gguf", out, to="big")
    assert not out.exists()
