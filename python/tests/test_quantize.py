"""onnxq.quants.quantize, the drop-in for gguf-py's gguf.quants.quantize: ggml's bytes (testdata/quantize/,
written by ggml's own functions) for every block format, gguf-py's argument forms and shapes, and the
refusals as ValueError."""

import sys
import threading

import numpy as np
import pytest

from onnxq import quants
from conftest import TESTDATA

Q = TESTDATA / "quantize"
NEEDS_IMATRIX = {"IQ2_XXS", "IQ2_XS", "IQ1_S"}
BLOCK_TYPES = [row for row in quants._FORMATS.values() if row[2] is not None]


def common_set():
    x = np.fromfile(Q / "common.input.f32", dtype="<f4").reshape(-1, 256)
    w = np.fromfile(Q / "common.importance.f32", dtype="<f4")
    return x, w


@pytest.mark.parametrize("row", BLOCK_TYPES, ids=lambda row: row[1])
def test_every_block_format_gives_ggmls_bytes(row):
    ggml_type, name, format_id = row[0], row[1], row[2]
    x, w = common_set()
    want = np.fromfile(Q / f"common.{format_id[5:]}.bin", dtype=np.uint8)
    weighted = quants.quantize(x, ggml_type, imatrix=w)
    assert weighted.dtype == np.uint8 and weighted.shape[0] == x.shape[0]
    if name in NEEDS_IMATRIX:
        assert np.array_equal(weighted.reshape(-1), want)
        with pytest.raises(ValueError, match=f"{name} needs an importance matrix"):
            quants.quantize(x, ggml_type)
    else:
        plain = quants.quantize(x, ggml_type)
        assert np.array_equal(plain.reshape(-1), want[: want.size // 2])
        assert np.array_equal(weighted.reshape(-1), want[want.size // 2:])


def test_gguf_py_argument_forms_and_shapes():
    x, _ = common_set()
    by_int = quants.quantize(x, 12)
    assert by_int.shape == (32, 144)
    assert np.array_equal(quants.quantize(x, "Q4_K"), by_int)
    assert np.array_equal(quants.quantize(x, "gguf:q4_k"), by_int)
    assert np.array_equal(quants.quantize(x, np.int32(12)), by_int)
    assert quants.quantize(x.reshape(4, 8, 256), 12).shape == (4, 8, 144)
    assert np.array_equal(quants.quantize(x.astype(np.float64), 12), by_int)  # astype(float32), as gguf-py
    assert np.array_equal(quants.quantize(x[0], 12), by_int[0])
    assert quants.quantize(x, 0) is x  # F32: data.astype(np.float32, copy=False)
    assert quants.quantize(x, 1).dtype == np.float16
    bf = quants.quantize(np.array([1.0, -2.5, 3.0000002], np.float32), 30)
    assert bf.dtype == np.uint8 and bf.view("<u2").tolist() == [0x3F80, 0xC020, 0x4040]
    assert quants.quantize(np.zeros((0, 64), np.float32), 8).shape == (0, 68)


def test_quantize_then_dequantize_round_trips_through_the_same_bytes():
    x, w = common_set()
    packed = quants.quantize(x, "Q6_K", imatrix=w)
    back = quants.dequantize(packed, 14)
    assert back.shape == x.shape
    assert np.array_equal(quants.quantize(back, "Q8_0"), quants.quantize(back.astype(np.float32), 8))


def test_refusals_are_value_errors_naming_what_is_wrong():
    x, _ = common_set()
    bad = x.copy()
    bad[3, 17] = np.inf
    with pytest.raises(ValueError, match="row 3, column 17: the value is infinite"):
        quants.quantize(bad, "Q4_0")
    with pytest.raises(ValueError, match="not a whole number of Q4_K blocks"):
        quants.quantize(x[:, :128], "Q4_K")
    with pytest.raises(ValueError, match="importance matrix has 3 values"):
        quants.quantize(x, "Q4_0", imatrix=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="no GGML type is called 'Q9_K'"):
        quants.quantize(x, "Q9_K")
    with pytest.raises(NotImplementedError, match="not I8"):
        quants.quantize(x, 24)


def test_the_gil_is_released_while_rows_are_quantized():
    """A proof, not a timing: with a 300 s switch interval the GIL changes hands only when a thread
    gives it up, so the watcher can see the worker inside a call only if the call released it."""
    x = np.random.default_rng(5).standard_normal((256, 4096)).astype(np.float32)
    in_call, seen, started = [False], [], threading.Event()

    def work():
        started.set()
        for _ in range(200):
            in_call[0] = True
            quants.quantize(x, "IQ4_XS", threads=1)
            in_call[0] = False
            if seen:
                return

    def watch():
        started.wait(60)
        seen.append(in_call[0])

    old = sys.getswitchinterval()
    sys.setswitchinterval(300)
    try:
        threads = [threading.Thread(target=watch), threading.Thread(target=work)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
    finally:
        sys.setswitchinterval(old)
    assert seen == [True], "the watcher ran only between or after the quantize calls"
