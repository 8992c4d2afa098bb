"""onnxq.quants.dequantize, the drop-in for gguf-py's gguf.quants.dequantize: its shapes, dtypes and
errors (as gguf-py 0.15 has them), and its values against ggml's expectations."""

import enum

import numpy as np
import pytest

import onnxq
from onnxq import quants
from conftest import BLOCK_FILES, ZOO, ZOO_TENSORS, assert_same_bits, block_bytes, expected

FORMATS = {f.ggml_type: f for f in onnxq.formats()}
PLAIN_VIEWS = {"F32": np.float32, "F64": np.float64, "I8": np.int8, "I16": np.int16, "I32": np.int32,
               "I64": np.int64}


class QType(enum.IntEnum):
    """Stands in for gguf-py's GGMLQuantizationType (an IntEnum); gguf-py itself is not needed."""

    F32 = 0
    F16 = 1
    Q4_0 = 2
    Q4_2 = 4  # removed from ggml long ago: no decoder anywhere
    Q8_1 = 9
    Q4_K = 12
    BF16 = 30


@pytest.mark.parametrize("entry", BLOCK_FILES, ids=lambda b: b["bin"])
def test_blocks_decode_as_ggml(entry):
    f = FORMATS[entry["type_id"]]
    rows = block_bytes(entry).reshape(entry["n_blocks"], f.block_bytes)
    got = quants.dequantize(rows, entry["type_id"])
    want = expected(entry).reshape(entry["n_blocks"], f.block_elements)
    if f.type in PLAIN_VIEWS:
        assert got.dtype == PLAIN_VIEWS[f.type]
        assert np.shares_memory(got, rows), "plain types come back as views, as gguf-py returns F32"
        native = got.reshape(want.shape)
        if f.type == "F32":
            assert_same_bits(native, want, entry["bin"])
        else:
            with np.errstate(over="ignore"):
                assert_same_bits(native.astype(np.float32), want, entry["bin"])
    else:
        assert got.dtype == np.float32
        assert_same_bits(got, want, entry["bin"])


@pytest.mark.parametrize("entry", ZOO_TENSORS, ids=lambda t: t["name"])
def test_zoo_raw_bytes_decode_to_the_tensor(entry):
    with onnxq.open(ZOO) as m:
        t = m[entry["name"]]
        got = quants.dequantize(t.raw(), t.ggml_type)
    want = expected(entry)
    assert got.shape == want.shape
    if got.dtype == np.float32:
        assert_same_bits(got, want, entry["name"])
    else:
        assert_same_bits(got, expected(entry, "expected_native"), entry["name"])


def test_shapes_follow_the_last_axis_as_gguf_py_does():
    q4_0 = FORMATS[2]
    data = np.zeros((2, 3, 4 * q4_0.block_bytes), np.uint8)  # 2x3 rows of 4 blocks
    assert quants.dequantize(data, 2).shape == (2, 3, 4 * 32)
    assert quants.dequantize(data[0, 0], 2).shape == (128,)
    # the bytes are the last axis whatever the dtype: 36 bytes of uint16 are 18 words
    assert quants.dequantize(data.view(np.uint16), 2).shape == (2, 3, 128)
    # non-contiguous input is read like a copy
    wide = np.zeros((2, 3, 8 * q4_0.block_bytes), np.uint8)
    assert quants.dequantize(wide[:, :, ::2], 2).shape == (2, 3, 128)
    # F16 and BF16 widen to float32 with the same element shape
    halves = np.array([[1.0, -2.0, np.inf]], np.float16)
    out = quants.dequantize(halves, 1)
    assert out.dtype == np.float32 and out.tolist() == [[1.0, -2.0, np.inf]]
    assert quants.dequantize(halves.view(np.uint8), 1).shape == (1, 3)
    bf = np.array([0x3F80, 0xC000], np.uint16)  # 1.0, -2.0
    assert quants.dequantize(bf, 30).tolist() == [1.0, -2.0]
    assert quants.dequantize(bf.view(np.uint8), 30).dtype == np.float32
    # an empty row set stays empty
    assert quants.dequantize(np.zeros((0, 18), np.uint8), 2).shape == (0, 32)


def test_f32_is_a_view_of_the_data():
    data = np.arange(8, dtype=np.float32).view(np.uint8).reshape(2, 16)
    out = quants.dequantize(data, 0)
    assert out.dtype == np.float32 and out.shape == (2, 4) and np.shares_memory(out, data)
    assert out.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_qtype_is_read_by_value_from_an_int_enum():
    raw = block_bytes(next(b for b in BLOCK_FILES if b["bin"] == "blocks/q4_k.bin")).reshape(-1, 144)
    assert_same_bits(quants.dequantize(raw, QType.Q4_K), quants.dequantize(raw, 12), "IntEnum vs int")
    assert_same_bits(quants.dequantize(raw, np.int32(12)), quants.dequantize(raw, 12), "numpy int")
    # a type gguf-py lacks, decoded all the same
    q8_1 = block_bytes(next(b for b in BLOCK_FILES if b["bin"] == "blocks/q8_1.bin")).reshape(-1, 36)
    assert quants.dequantize(q8_1, QType.Q8_1).shape == (q8_1.shape[0], 32)


def test_errors():
    with pytest.raises(NotImplementedError, match=r"Q4_2 \(4\)"):
        quants.dequantize(np.zeros(20, np.uint8), QType.Q4_2)
    with pytest.raises(NotImplementedError, match="GGML type 99"):
        quants.dequantize(np.zeros(20, np.uint8), 99)
    with pytest.raises(ValueError, match="whole 18-byte blocks.*got 20 bytes per row"):
        quants.dequantize(np.zeros((2, 20), np.uint8), QType.Q4_0)
    with pytest.raises(TypeError, match="qtype must be"):
        quants.dequantize(np.zeros(18, np.uint8), "Q4_0")
    with pytest.raises(TypeError, match="qtype must be"):
        quants.dequantize(np.zeros(18, np.uint8), 2.0)
    with pytest.raises(ValueError, match="threads"):
        quants.dequantize(np.zeros(18, np.uint8), 2, threads=0)


def test_shape_helpers():
    assert quants.quant_shape_to_byte_shape((4, 512), QType.Q4_K) == (4, 288)
    assert quants.quant_shape_from_byte_shape((4, 288), 12) == (4, 512)
    assert quants.quant_shape_from_byte_shape((3, 8), QType.F16) == (3, 4)
    with pytest.raises(ValueError):
        quants.quant_shape_to_byte_shape((4, 100), QType.Q4_0)
    with pytest.raises(ValueError):
        quants.quant_shape_from_byte_shape((4, 100), QType.Q4_0)
