"""out= on Tensor.numpy(), onnxq.dequantize() and quants.dequantize(): decoding into the caller's
memory gives the same bits as a fresh array, returns out itself, takes any shape of the same
element count and any writable C-contiguous buffer, and refuses a wrong out with a ValueError
that names what was expected, before writing anything and without touching the input."""

import numpy as np
import pytest

import onnxq
from onnxq import quants
from conftest import BLOCK_FILES, ZOO, assert_same_bits, block_bytes

DTYPES = ["float32", "float16", "bfloat16", "float64"]
ZOO_NAMES = ["q4_0.weight", "q4_k.weight", "iq2_xxs.weight", "q8_0.weight", "f16.weight", "bf16.weight",
             "cube_3d.q4_k"]
BLOCKS = {b["format"]: b for b in BLOCK_FILES if not b["bin"].endswith(".edge.bin")}
BLOCK_FORMATS = ["Q4_0", "Q4_K", "IQ2_XXS", "Q6_K"]
FORMATS = {f.type: f for f in onnxq.formats()}
FILL = 0x5A  # a byte pattern no decode leaves behind by chance (0x5A5A... is no NaN)


def np_dtype(name):
    """The numpy dtype the module uses for `name` (bfloat16: ml_dtypes', else uint16 bits)."""
    return onnxq.dequantize(np.zeros(18, np.uint8), "gguf:q4_0", [32], dtype=name).dtype


def filled(shape, dtype):
    a = np.empty(shape, dtype)
    a.view(np.uint8)[...] = FILL
    return a


def flat(a):
    return np.asarray(a).reshape(-1)


@pytest.fixture(scope="module")
def zoo():
    with onnxq.open(ZOO) as m:
        yield m


def block_input(fmt):
    """A block file's bytes and the DequantizePacked shape they hold (one row per block)."""
    entry = BLOCKS[fmt]
    f = FORMATS[fmt]
    return block_bytes(entry), [entry["n_blocks"], f.block_elements], f.format_id


# --- the same bits, out itself, any shape ------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ZOO_NAMES)
def test_numpy_out_equals_a_fresh_array(zoo, name, dtype):
    t = zoo[name]
    want = t.numpy(dtype=dtype)
    for given in (dtype, None):  # dtype named, or taken from out's
        out = filled(t.shape, want.dtype)
        got = t.numpy(dtype=given, out=out)
        assert got is out
        assert_same_bits(out, want, f"{name} {dtype} dtype={given}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_out_of_another_shape(zoo, dtype):
    t = zoo["cube_3d.q4_k"]  # shape (3, 2, 256)
    want = flat(t.numpy(dtype=dtype))
    for shape in ((t.n_elements,), (256, 6), (t.n_elements, 1), (2, 3, 16, 16)):
        out = filled(shape, want.dtype)
        assert t.numpy(out=out) is out
        assert out.shape == shape, "out is returned as it was, not reshaped"
        assert_same_bits(flat(out), want, f"{dtype} {shape}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_dequantize_out_equals_a_fresh_array(fmt, dtype):
    x, shape, format_id = block_input(fmt)
    before = x.copy()
    want = onnxq.dequantize(x, format_id, shape, dtype=dtype)
    for given, out_shape in ((dtype, shape), (None, shape), (None, [shape[0] * shape[1]]), (dtype, shape[::-1])):
        out = filled(out_shape, want.dtype)
        assert onnxq.dequantize(x, format_id, shape, dtype=given, out=out) is out
        assert out.shape == tuple(out_shape)
        assert_same_bits(flat(out), flat(want), f"{fmt} {dtype} dtype={given} {out_shape}")
    assert np.array_equal(x, before), "the input is unchanged"


def test_dequantize_default_dtype_is_still_float32():
    x, shape, format_id = block_input("Q4_0")
    assert onnxq.dequantize(x, format_id, shape).dtype == np.float32
    assert onnxq.dequantize(x, format_id, shape, dtype=None).dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ZOO_NAMES)
def test_quants_out_equals_the_tensor(zoo, name, dtype):
    t = zoo[name]
    data = np.array(t.raw())  # a writable copy, to see that the decode leaves it alone
    before = data.copy()
    want = t.numpy(dtype=dtype)
    out = filled(t.shape[::-1], want.dtype)  # reversed: same count, another shape
    assert quants.dequantize(data, t.ggml_type, out=out) is out
    assert_same_bits(flat(out), flat(want), f"{name} {dtype}")
    assert np.array_equal(data, before), "the input is unchanged"
    if dtype == "float32":  # gguf-py's call, without out, agrees
        assert_same_bits(flat(out), flat(quants.dequantize(data, t.ggml_type)), name)


def test_quants_out_copies_a_plain_type_instead_of_a_view(zoo):
    t = zoo["f32.weight"]
    data = np.array(t.raw())
    out = filled(t.n_elements, np.float32)
    assert quants.dequantize(data, t.ggml_type, out=out) is out
    assert not np.shares_memory(out, data)
    assert_same_bits(out, flat(quants.dequantize(data, t.ggml_type)), "f32")


def test_buffers_that_are_not_arrays(zoo):
    t = zoo["q4_k.weight"]
    want = flat(t.numpy())
    store = bytearray(b"\x5a" * (4 * t.n_elements))
    view = memoryview(store).cast("f")  # the format gives the dtype: float32
    assert t.numpy(out=view) is view
    assert_same_bits(np.frombuffer(store, np.float32), want, "memoryview")
    doubles = memoryview(bytearray(8 * t.n_elements)).cast("d")  # float64 by format
    assert t.numpy(out=doubles) is doubles
    assert_same_bits(np.frombuffer(doubles, np.float64), flat(t.numpy(dtype="float64")), "memoryview f64")
    torch_like = np.ndarray((t.n_elements,), np.float32, buffer=bytearray(4 * t.n_elements))  # a view over foreign memory
    assert t.numpy(out=torch_like) is torch_like
    assert_same_bits(torch_like, want, "ndarray over a buffer")


def test_integer_tensor_into_its_own_dtype(zoo):
    t = zoo["i32.weight"]
    out = filled(t.shape, np.int32)
    assert t.numpy(out=out) is out
    assert_same_bits(out, t.numpy(), "i32")


def test_an_empty_out_for_an_empty_input():
    out = np.empty((0,), np.float32)
    assert onnxq.dequantize(np.zeros(0, np.uint8), "gguf:q4_0", [0, 32], out=out) is out


# --- errors: ValueError naming what was expected and given, nothing written ------------------


def tensor_call(zoo):
    t = zoo["q4_0.weight"]
    return t.n_elements, "the tensor has 1536", lambda out, **kw: t.numpy(out=out, **kw)


def dequantize_call(zoo):
    x, shape, format_id = block_input("Q4_0")
    n = shape[0] * shape[1]
    return n, f"shape [{shape[0]}, 32] has {n}", lambda out, **kw: onnxq.dequantize(x, format_id, shape, out=out, **kw)


def quants_call(zoo):
    t = zoo["q4_0.weight"]
    data = np.array(t.raw())
    return t.n_elements, "the data has 1536", lambda out, **kw: quants.dequantize(data, t.ggml_type, out=out, **kw)


CALLS = {"Tensor.numpy": tensor_call, "onnxq.dequantize": dequantize_call, "quants.dequantize": quants_call}


def expect_refused(call, out, *words, **kw):
    before = out.tobytes() if isinstance(out, np.ndarray) else None
    with pytest.raises(ValueError) as e:
        call(out, **kw)
    for w in words:
        assert w in str(e.value), f"{w!r} not in {str(e.value)!r}"
    if before is not None:
        assert out.tobytes() == before, "out was written"


@pytest.mark.parametrize("path", CALLS)
def test_wrong_element_count(zoo, path):
    n, counted, call = CALLS[path](zoo)
    expect_refused(call, filled(n + 1, np.float32), f"out has {n + 1} elements, {counted}")
    expect_refused(call, filled(n - 1, np.float32), f"out has {n - 1} elements, {counted}")
    expect_refused(call, filled((2, n), np.float32), f"out has {2 * n} elements, {counted}")


@pytest.mark.parametrize("path", CALLS)
def test_wrong_dtype(zoo, path):
    n, _, call = CALLS[path](zoo)
    for bad in (np.int32, np.uint8, np.complex64, ">f4"):
        expect_refused(call, filled(n, bad), f"out has dtype {np.dtype(bad)}", "expected float32, float16")
    expect_refused(call, bytearray(4 * n), "out has dtype uint8", "expected float32")
    if path != "quants.dequantize":  # the only one with a dtype argument besides out
        expect_refused(call, filled(n, np.float32), "out has dtype float32, expected float16", dtype="float16")
        expect_refused(call, filled(n, np.float16), "out has dtype float16, expected float32", dtype="float32")
        expect_refused(call, filled(n, np.float64), f"out has dtype float64, expected {np_dtype('bfloat16')}",
                       dtype="bfloat16")


@pytest.mark.parametrize("path", CALLS)
def test_not_contiguous(zoo, path):
    n, _, call = CALLS[path](zoo)
    expect_refused(call, filled(2 * n, np.float32)[::2], "C-contiguous", "strides (8,)")
    expect_refused(call, filled((n // 32, 64), np.float32)[:, :32], "C-contiguous")
    expect_refused(call, filled((32, n // 32), np.float32).T, "C-contiguous")


@pytest.mark.parametrize("path", CALLS)
def test_read_only(zoo, path):
    n, _, call = CALLS[path](zoo)
    out = filled(n, np.float32)
    out.setflags(write=False)
    expect_refused(call, out, "out must be writable", "read-only float32")
    expect_refused(call, memoryview(bytes(4 * n)).cast("f"), "read-only")


def test_not_a_buffer(zoo):
    n, _, call = tensor_call(zoo)
    with pytest.raises(TypeError, match="out must be a writable C-contiguous array or buffer, got list"):
        call([0.0] * n)


def test_out_overlapping_the_input_of_dequantize():
    x, shape, format_id = block_input("Q4_0")
    n = shape[0] * shape[1]
    arena = np.zeros(4 * n + x.size + 64, np.uint8)
    packed = arena[4 * n - 8:4 * n - 8 + x.size]  # the tail of out's bytes overlaps the head of x's
    packed[...] = x
    out = arena[:4 * n].view(np.float32)
    before = arena.copy()
    expect_refused(lambda o, **kw: onnxq.dequantize(packed, format_id, shape, out=o, **kw), out,
                   "out overlaps the memory of x")
    # the same memory reached through a non-contiguous x (decoded from a copy, still the caller's)
    strided = arena[:2 * x.size:2]
    expect_refused(lambda o, **kw: onnxq.dequantize(strided, format_id, shape, out=o, **kw),
                   arena[x.size:x.size + 4 * n].view(np.float32), "out overlaps the memory of x")
    assert np.array_equal(arena, before), "neither x nor out was written"
    apart = filled(n, np.float32)  # the control: separate memory decodes
    assert onnxq.dequantize(packed, format_id, shape, out=apart) is apart


def test_out_overlapping_the_input_of_quants(zoo):
    t = zoo["q4_0.weight"]
    raw = np.array(t.raw())
    arena = np.zeros(4 * t.n_elements + raw.size, np.uint8)
    data = arena[4 * t.n_elements - raw.size // 2:][:raw.size].reshape(raw.shape)
    data[...] = raw
    out = arena[:4 * t.n_elements].view(np.float32)
    before = arena.copy()
    expect_refused(lambda o, **kw: quants.dequantize(data, t.ggml_type, out=o, **kw), out,
                   "out overlaps the memory of data")
    # a non-contiguous data is made contiguous first; the caller's memory still counts
    wide = arena[:2 * raw.size].reshape(raw.shape[0], -1)[:, ::2]
    expect_refused(lambda o, **kw: quants.dequantize(wide, t.ggml_type, out=o, **kw),
                   arena[raw.size:raw.size + 4 * t.n_elements].view(np.float32), "out overlaps the memory of data")
    assert np.array_equal(arena, before), "neither data nor out was written"
