"""Every format bit for bit against ggml's expectations (testdata/manifest.json): the zoo.gguf
tensors through onnxq.open(), the quantizer and edge blocks through onnxq.dequantize(), in every
output dtype."""

import numpy as np
import pytest

import onnxq
from conftest import BLOCK_FILES, ZOO, ZOO_TENSORS, assert_same_bits, block_bytes, expected

FORMATS = {f.ggml_type: f for f in onnxq.formats()}
BLOCK_FORMAT_FILES = [b for b in BLOCK_FILES if FORMATS[b["type_id"]].format_id]
# Types whose values are exact in float32, so every 16-bit result is one rounding of ggml's float32.
FLOAT_EXACT = [t for t in ZOO_TENSORS if t["type"] not in ("F64", "I32", "I64")]


def to_bf16_bits(f32: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, rounding to nearest even (NaN stays a NaN)."""
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f32), np.uint16(0x7FC0), rounded)


def bf16_as_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def expect_dtypes(decode, want_f32: np.ndarray, what: str) -> None:
    """decode(dtype) in float32, float64, float16 and bfloat16 against roundings of want_f32."""
    assert_same_bits(decode("float32"), want_f32, what + " float32")
    assert_same_bits(decode("float64"), want_f32.astype(np.float64), what + " float64")
    with np.errstate(over="ignore"):
        assert_same_bits(decode("float16"), want_f32.astype(np.float16), what + " float16")
    got = decode("bfloat16")
    assert got.itemsize == 2 and got.shape == want_f32.shape, what
    assert_same_bits(bf16_as_f32(got.view(np.uint16)), bf16_as_f32(to_bf16_bits(want_f32)), what + " bfloat16")


def test_the_zoo_and_the_table_cover_every_format():
    zoo_types = {t["type"] for t in ZOO_TENSORS}
    assert zoo_types == {f.type for f in onnxq.formats()}
    assert len([f for f in onnxq.formats() if f.format_id]) == 27


@pytest.mark.parametrize("entry", ZOO_TENSORS, ids=lambda t: t["name"])
def test_zoo_tensor_decodes_as_ggml(entry):
    with onnxq.open(ZOO) as m:
        t = m[entry["name"]]
        want = expected(entry)
        assert t.shape == tuple(entry["onnx_shape"]) == want.shape
        if "expected_native" in entry:  # F64 and the integer types: their own dtype by default
            native = expected(entry, "expected_native")
            assert_same_bits(t.numpy(), native if native.dtype.kind in "iu" else native.astype(np.float32),
                             entry["name"])
            assert_same_bits(t.numpy("float64"), native.astype(np.float64), entry["name"] + " float64")
            assert_same_bits(t.numpy("float32"), want, entry["name"] + " float32")
        else:
            assert_same_bits(t.numpy(), want, entry["name"])
        for threads in (1, 2):
            assert_same_bits(t.numpy(threads=threads), t.numpy(), f"{entry['name']} threads={threads}")


@pytest.mark.parametrize("entry", FLOAT_EXACT, ids=lambda t: t["name"])
def test_zoo_tensor_in_every_dtype(entry):
    with onnxq.open(ZOO) as m:
        t = m[entry["name"]]
        expect_dtypes(lambda dtype: t.numpy(dtype=dtype), expected(entry), entry["name"])
        # numpy dtype objects name the same dtypes
        assert t.numpy(np.float16).dtype == np.float16
        assert t.numpy(np.dtype("float64")).dtype == np.float64


def test_native_integer_tensors_equal_their_values():
    with onnxq.open(ZOO) as m:
        for entry in ZOO_TENSORS:
            if "expected_native" in entry:
                native = expected(entry, "expected_native")
                assert m[entry["name"]].numpy().dtype == (native.dtype if native.dtype.kind in "iu" else np.float32)
                if native.dtype.kind in "iu":
                    assert_same_bits(m[entry["name"]].numpy(native.dtype.name), native, entry["name"])


@pytest.mark.parametrize("entry", BLOCK_FORMAT_FILES, ids=lambda b: b["bin"])
def test_blocks_through_dequantize(entry):
    f = FORMATS[entry["type_id"]]
    raw = block_bytes(entry)
    want = expected(entry).reshape(-1)
    assert_same_bits(onnxq.dequantize(raw, format=f.format_id, shape=[want.size]), want, entry["bin"])
    rows = [entry["n_blocks"], f.block_elements]
    got = onnxq.dequantize(raw, f.format_id, rows, threads=2)
    assert_same_bits(got, want.reshape(rows), entry["bin"] + " as rows")
    expect_dtypes(lambda dtype: onnxq.dequantize(raw, f.format_id, rows, dtype=dtype), want.reshape(rows), entry["bin"])


def test_dequantize_a_block_worked_by_hand():
    # q4_0: d = 1.0 (0x3C00); every byte 0x98 holds low nibble 8 (element j: 8 - 8 = 0) and high
    # nibble 9 (element j + 16: 9 - 8 = 1)
    block = bytes([0x00, 0x3C]) + bytes([0x98] * 16)
    got = onnxq.dequantize(np.frombuffer(block, np.uint8), "gguf:q4_0", [32])
    assert got.tolist() == [0.0] * 16 + [1.0] * 16
