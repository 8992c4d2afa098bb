"""gguf-py's ``gguf.quants.dequantize`` on onnxq's decoders: the same call, shapes and values.

Replace ``from gguf import quants`` with ``from onnxq import quants``: ``quants.dequantize(data,
qtype)`` takes the same arguments and returns the same array, bit for bit (NaNs as NaNs), for every
type gguf-py decodes, and decodes the types it lacks too (Q8_1, Q8_K, MXFP4, NVFP4, Q1_0, Q2_0 and
the integer types and F64). The decoding runs in onnxq's C++ library on OpenMP threads, with the
GIL released. Only dequantization is provided; onnxq does not quantize.
"""

import operator
from typing import Dict, Sequence, Tuple

import numpy as np

from . import _onnxq

# ggml_type -> (ggml_type, type, format_id, block_elements, block_bytes, bits_per_weight, plain_dtype)
_FORMATS: Dict[int, tuple] = {row[0]: row for row in _onnxq._format_rows()}
_F16, _BF16 = 1, 30  # plain types that are widened to float32, as gguf-py does


def _format(qtype) -> tuple:
    try:
        number = operator.index(qtype)
    except TypeError:
        raise TypeError(f"qtype must be a GGML type number or an IntEnum such as gguf's GGMLQuantizationType, "
                        f"got {qtype!r}") from None
    row = _FORMATS.get(number)
    if row is None:
        name = getattr(qtype, "name", None)
        label = f"{name} ({number})" if isinstance(name, str) else str(number)
        raise NotImplementedError(f"onnxq has no decoder for GGML type {label} (see onnxq.formats())")
    return row


def quant_shape_to_byte_shape(shape: Sequence[int], quant_type) -> Tuple[int, ...]:
    """The byte shape of a tensor of `shape` in `quant_type`: the last axis in bytes of whole blocks."""
    _, name, _, block_elements, block_bytes, _, _ = _format(quant_type)
    if shape[-1] % block_elements:
        raise ValueError(f"a {name} row holds whole blocks of {block_elements} elements; "
                         f"the last axis has {shape[-1]}")
    return (*shape[:-1], shape[-1] // block_elements * block_bytes)


def quant_shape_from_byte_shape(shape: Sequence[int], quant_type) -> Tuple[int, ...]:
    """The element shape of `quant_type` data of byte shape `shape` (the inverse of quant_shape_to_byte_shape)."""
    _, name, _, block_elements, block_bytes, _, _ = _format(quant_type)
    if shape[-1] % block_bytes:
        raise ValueError(f"a {name} row holds whole blocks of {block_bytes} bytes; the last axis has {shape[-1]} bytes")
    return (*shape[:-1], shape[-1] // block_bytes * block_elements)


def dequantize(data: np.ndarray, qtype, *, threads=None, out=None) -> np.ndarray:
    """Decodes packed GGML data as gguf-py's ``gguf.quants.dequantize(data, qtype)`` does.

    data: the packed bytes, as a numpy array whose last axis holds whole blocks (it is read as
        bytes, whatever its dtype, as gguf-py reads it), e.g. a uint8 array of shape
        (..., bytes per row) such as gguf-py's ReaderTensor.data or onnxq's Tensor.raw().
    qtype: the GGML type: an int, or an IntEnum such as gguf-py's GGMLQuantizationType (read by
        its value; gguf-py is not imported).
    threads: OpenMP threads (an onnxq extra); None is the library's default.
    out: a writable C-contiguous array or buffer (an onnxq extra) of exactly as many elements as
        the data holds, in any shape, apart from data's memory: the values are decoded into it in
        its dtype (float32, float16, bfloat16 or float64; an integer type's own dtype too) and
        out itself is returned, for a loader that reuses its buffers. The plain types are copied
        into it too, never returned as views then.

    Returns float32 of shape (..., elements per row), bit for bit ggml's values (and gguf-py's).
    As in gguf-py, F32 data comes back as a view (``data.view(np.float32)``); the other plain
    types gguf-py lacks (F64, I8, I16, I32, I64) likewise come back as views in their own dtype.
    Raises NotImplementedError for a type onnxq cannot decode, ValueError when the last axis is
    not a whole number of blocks or an out of the wrong dtype, size or layout, read-only or
    overlapping data, TypeError for a qtype that is not an integer.
    """
    ggml_type, name, _, block_elements, block_bytes, _, plain = _format(qtype)
    data = np.asarray(data)
    if out is None and plain is not None and ggml_type not in (_F16, _BF16):
        return data.view(np.dtype(plain))
    if data.ndim == 0:
        raise ValueError(f"{name} data must have at least one axis, got a 0-d array")
    rows = np.ascontiguousarray(data).view(np.uint8)
    if rows.shape[-1] % block_bytes:
        raise ValueError(f"{name} data must hold whole {block_bytes}-byte blocks along its last axis, "
                         f"got {rows.shape[-1]} bytes per row")
    shape = (*rows.shape[:-1], rows.shape[-1] // block_bytes * block_elements)
    return _onnxq._decode_ggml(rows, ggml_type, shape, threads, out, data)
