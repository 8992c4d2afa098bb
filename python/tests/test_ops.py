"""onnxq.unpack, onnxq.onehot and onnxq.unsqueeze on the conformance cases in testdata/ops (the
operator docs' examples and the ONNX repository's node tests, as .npy), and the module's own
promises: unsqueeze returns a view, unpack's default count, input conversions."""

import json

import numpy as np
import pytest

import onnxq
from conftest import TESTDATA

CASES = sorted(p for p in (TESTDATA / "ops").iterdir() if (p / "case.json").exists())


def run_case(case):
    spec = json.loads((case / "case.json").read_text())
    inputs = [np.load(case / f"input_{i}.npy") for i in range(3) if (case / f"input_{i}.npy").exists()]
    attrs = spec["attributes"]
    if spec["op_type"] == "Unpack":
        x, count = inputs
        return onnxq.unpack(x, int(count), **attrs)
    if spec["op_type"] == "OneHot":
        indices, depth, values = inputs
        return onnxq.onehot(indices, depth, values, attrs.get("axis", -1))
    assert spec["op_type"] == "Unsqueeze"
    x, axes = inputs
    return onnxq.unsqueeze(x, axes.tolist())


def test_every_operator_has_cases():
    ops = {json.loads((c / "case.json").read_text())["op_type"] for c in CASES}
    assert ops == {"Unpack", "OneHot", "Unsqueeze"}


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_conformance_case(case):
    got = run_case(case)
    want = np.load(case / "output_0.npy")
    assert got.dtype == want.dtype and got.shape == want.shape, case.name
    assert np.array_equal(got, want), case.name


def test_unsqueeze_is_a_view():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = onnxq.unsqueeze(x, [0, -1])
    assert y.shape == (1, 2, 3, 1) and np.shares_memory(x, y)
    assert np.array_equal(y, np.expand_dims(x, (0, 3)))


def test_unpack_default_count_and_forms():
    # 3-bit codes 0..7 packed LSB first: [0x88, 0xC6, 0xFA]
    x = np.array([0x88, 0xC6, 0xFA], np.uint8)
    assert onnxq.unpack(x, bits=3).tolist() == list(range(8)), "count defaults to what the axis holds"
    assert onnxq.unpack(x, 8, bits=3).tolist() == list(range(8))
    # five ternary digits per byte: 102 = 0 + 1*3 + 2*9 + 0*27 + 1*81
    assert onnxq.unpack(np.array([102], np.uint8), 5, radix=3, group_size=5).tolist() == [0, 1, 2, 0, 1]
    words = np.full((2,), 0xFFFFFFFF, np.uint32)
    assert onnxq.unpack(words, 7, bits=5, axis=0).tolist() == [31] * 7
    y = onnxq.unpack(x.reshape(1, 3), bits=3)
    assert y.dtype == np.uint8 and y.shape == (1, 8) and y.flags.writeable


def test_onehot_versions_and_dtypes():
    y = onnxq.onehot(np.array([0, 2, -1]), 3, np.array([0.5, 2.0], np.float32))
    assert y.dtype == np.float32
    assert y.tolist() == [[2.0, 0.5, 0.5], [0.5, 0.5, 2.0], [0.5, 0.5, 0.5]], "OneHot-9: -1 is off"
    y11 = onnxq.onehot(np.array([0, 2, -1]), 3, np.array([0.5, 2.0], np.float32), version=11)
    assert y11[2].tolist() == [0.5, 0.5, 2.0], "OneHot-11: -1 counts from depth"
    assert onnxq.onehot([1], 2).dtype == np.int64 and onnxq.onehot([1], 2).tolist() == [[0, 1]]
    assert onnxq.onehot(np.array([[1]]), np.array([4]), axis=0).shape == (4, 1, 1)


def test_inputs_are_converted_as_numpy_would():
    assert onnxq.unpack(bytes([0x88, 0xC6, 0xFA]), bits=3).tolist() == list(range(8)), "bytes are uint8"
    assert onnxq.unpack(bytearray([0x88, 0xC6, 0xFA]), bits=3).tolist() == list(range(8)), "so is a bytearray"
    strided = np.zeros(6, np.uint8)
    strided[::2] = [0x88, 0xC6, 0xFA]
    assert onnxq.unpack(strided[::2], bits=3).tolist() == list(range(8)), "a strided view"
    big = np.array([31 | 2 << 5], ">u4")
    assert onnxq.unpack(big, 3, bits=5).tolist() == [31, 2, 0], "a non-native byte order"
    raw = np.frombuffer(bytes([0x00, 0x3C]) + bytes([0x98] * 16), np.uint8)
    assert onnxq.dequantize(raw, "gguf:q4_0", [32]).sum() == 16.0
