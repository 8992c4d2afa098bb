"""The fuzz corpus replayed through the module: nothing crashes the interpreter, and every failure
is one of the documented exceptions. tests/fuzz/corpus/gguf and tests/regression/gguf go through
open(), the metadata, every tensor's decode and raw bytes, and quants.dequantize; the operator
corpus (tests/fuzz/corpus/ops) becomes operator calls with the arguments its bytes pick. (The
.npy, TensorProto and ONNX model corpora feed readers the module does not expose.) In the
sanitizer build this runs under ASan and UBSan (python/tests/tests.cmake)."""

import numpy as np
import pytest

import onnxq
from onnxq import quants
from conftest import SOURCE_DIR

GGUF_INPUTS = sorted((SOURCE_DIR / "tests" / "fuzz" / "corpus" / "gguf").iterdir()) + \
    sorted((SOURCE_DIR / "tests" / "regression" / "gguf").iterdir())
OPS_INPUTS = sorted((SOURCE_DIR / "tests" / "fuzz" / "corpus" / "ops").iterdir())
EXPECTED = (onnxq.InvalidInputError, ValueError, TypeError, OSError)
DECODABLE = {f.ggml_type for f in onnxq.formats()}


def replay_gguf(path):
    try:
        m = onnxq.open(path)
    except EXPECTED:
        return "rejected"
    with m:
        for key, value in m.metadata.items():
            assert isinstance(key, str)
            repr(value)
        for t in m.tensors:
            if t.ggml_type not in DECODABLE:  # listed with the bytes the layout leaves it, not decoded
                assert t.format is None and t.raw().nbytes == t.nbytes
                with pytest.raises(onnxq.InvalidInputError, match="which onnxq does not know"):
                    t.numpy()
                continue
            try:
                out = t.numpy()
            except onnxq.InvalidInputError as e:  # an empty tensor with dimensions numpy cannot hold
                assert t.n_elements == 0 and "numpy cannot make an array" in str(e)
                continue
            assert out.shape == t.shape and out.size == t.n_elements
            assert t.numpy("float16", threads=2).shape == t.shape
            raw = t.raw()
            assert raw.nbytes == t.nbytes
            if t.type not in ("F32", "F64", "I8", "I16", "I32", "I64"):
                assert quants.dequantize(raw, t.ggml_type).shape == t.shape
    return "read"


def test_gguf_corpus_and_regressions():
    assert len(GGUF_INPUTS) > 100
    results = [replay_gguf(p) for p in GGUF_INPUTS]
    # The corpus holds both kinds: the replay reached the decoders, not only the first check.
    assert results.count("read") > 20 and results.count("rejected") > 20, results.count("read")


class Picker:
    """The corpus bytes, read front to back as choices (zeros past the end)."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def byte(self) -> int:
        self.pos += 1
        return self.data[self.pos - 1] if self.pos <= len(self.data) else 0

    def pick(self, options):
        return options[self.byte() % len(options)]

    def int_in(self, lo, hi):
        return lo + (self.byte() | self.byte() << 8) % (hi - lo + 1)

    def shape(self, max_rank, max_dim):
        return tuple(self.int_in(0, max_dim) for _ in range(self.int_in(0, max_rank)))

    def array(self, dtype, shape):
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        rest = self.data[self.pos:] or b"\0"
        raw = (rest * (n // len(rest) + 1))[:n]
        return np.frombuffer(raw, np.uint8).view(dtype).reshape(shape)


DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.uint32, np.uint64, np.float16,
          np.float32, np.float64, np.bool_, np.complex64]
FORMATS = [f for f in onnxq.formats() if f.format_id]


def replay_op(data: bytes):
    p = Picker(data)
    op = p.byte() % 4
    if op == 0:
        f = p.pick(FORMATS)
        shape = list(p.shape(3, 3))
        if shape:
            shape[-1] *= f.block_elements
        length = int(np.prod(shape, dtype=np.int64)) // f.block_elements * f.block_bytes + p.pick([0, 0, 0, 1, -1])
        x = p.array(p.pick([np.uint8] * 7 + [np.int8]), (max(length, 0),))
        return onnxq.dequantize(x, p.pick([f.format_id] * 7 + ["gguf:Q4_0"]), shape,
                                dtype=p.pick(["float32", "float16", "bfloat16", "float64", "int32"]),
                                threads=p.pick([None, 1, 2]))
    if op == 1:
        x = p.array(p.pick([np.uint8, np.uint32, np.uint8, np.int16]), p.shape(3, 12))
        form = p.byte() % 3
        kwargs = ({"bits": p.int_in(-1, 9)} if form == 0 else
                  {"radix": p.int_in(0, 258), "group_size": p.int_in(-1, 70)} if form == 1 else
                  {"bits": p.int_in(0, 9), "radix": p.int_in(1, 300)})
        count = p.pick([None, p.int_in(-2, 300)])
        return onnxq.unpack(x, count, axis=p.int_in(-4, 3), **kwargs)
    if op == 2:
        indices = p.array(p.pick(DTYPES), p.shape(3, 6))
        depth = p.pick([p.int_in(-2, 40), np.array([p.int_in(0, 40)]), np.float32(p.int_in(0, 40)) + 0.25])
        values = p.array(p.pick(DTYPES), (p.pick([2, 2, 2, 3]),))
        return onnxq.onehot(indices, depth, values, p.int_in(-5, 4), version=p.pick([9, 11]))
    x = p.array(p.pick(DTYPES), p.shape(4, 5))
    axes = [p.int_in(-9, 9) for _ in range(p.int_in(0, 5))]
    y = onnxq.unsqueeze(x, axes)
    assert y.size == x.size and y.ndim == x.ndim + len(axes)
    return y


def test_ops_corpus():
    assert len(OPS_INPUTS) > 100
    ok = 0
    for path in OPS_INPUTS:
        try:
            y = replay_op(path.read_bytes())
            assert isinstance(y, np.ndarray)
            ok += 1
        except EXPECTED:
            pass
    assert ok > len(OPS_INPUTS) // 10, f"only {ok} of {len(OPS_INPUTS)} inputs made a valid call"
