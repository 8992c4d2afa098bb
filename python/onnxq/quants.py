"""gguf-py's ``gguf.quants.dequantize`` on onnxq's decoders: the same call, shapes and values.

Replace ``from gguf import quants`` with ``from onnxq import quants``: ``quants.dequantize(data,
qtype)`` takes the same arguments and returns the same array, bit for bit (NaNs as NaNs), for every
type gguf-py decodes, and decodes the types it lacks too (Q8_1, Q8_K, MXFP4, NVFP4, Q1_0, Q2_0 and
the integer types and F64). ``quants.quantize(data, qtype)`` is the other way, for all 27 block
formats, byte for byte as ggml's ggml_quantize_chunk (gguf-py quantizes 9 of them). Both run in
onnxq's C++ library on OpenMP threads, with the GIL released.
"""

import operator
from typing import Dict, Sequence, Tuple

import numpy as np

from . import _onnxq

# ggml_type -> (ggml_type, type, format_id, block_elements, block_bytes, bits_per_weight, plain_dtype)
_FORMATS: Dict[int, tuple] = {row[0]: row for row in _onnxq._format_rows()}
_F16, _BF16 = 1, 30  # plain types that are widened to float32, as gguf-py does


_BY_NAME: Dict[str, int] = {row[1].lower(): row[0] for row in _FORMATS.values()}


def _format(qtype, names=False) -> tuple:
    if names and isinstance(qtype, str):  # quantize's extra: "Q4_K", "q4_k" or "gguf:q4_k"
        number = _BY_NAME.get(qtype.lower().removeprefix("gguf:"))
        if number is None:
            raise ValueError(f"no GGML type is called {qtype!r} (see onnxq.formats())")
        return _FORMATS[number]
    try:
        number = operator.index(qtype)
    except TypeError:
        raise TypeError(f"qtype must be a GGML type number, a name, or an IntEnum such as gguf's GGMLQuantizationType, "
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


_F32 = 0


def quantize(data: np.ndarray, qtype, *, imatrix=None, threads=None) -> np.ndarray:
    """Quantizes float rows as gguf-py's ``gguf.quants.quantize(data, qtype)`` does, byte for byte as ggml.

    data: a float array (read as float32: float16 and bfloat16 values widen exactly); its last axis
        is a row, a multiple of the type's block elements.
    qtype: the GGML type: an int, an IntEnum such as gguf-py's GGMLQuantizationType, or a name
        such as "Q4_K" (an onnxq extra).
    imatrix: one importance weight per column (an onnxq extra; ggml's imatrix). IQ2_XXS, IQ2_XS and
        IQ1_S need one; Q8_0, Q8_1, Q8_K, Q1_0, Q2_0, TQ1_0, TQ2_0, MXFP4 and NVFP4 ignore it.
    threads: OpenMP threads (an onnxq extra); the bytes are the same for any count.

    Returns uint8 of shape ``data.shape[:-1] + (bytes per row,)``: ggml_quantize_chunk's bytes
    (quantize_row_q8_1_ref / quantize_row_q8_K_ref for Q8_1 and Q8_K). As in gguf-py, F32 and F16
    return ``data.astype(...)`` and BF16 its bytes. Raises ValueError for NaN or infinite values (naming the row and
    column), a last axis that is not whole blocks, an imatrix of the wrong length or a type that needs
    one without it; NotImplementedError for a type with no quantizer.
    """
    ggml_type, name, _, _, _, _, plain = _format(qtype, names=True)
    if ggml_type == _F32:
        return np.asarray(data).astype(np.float32, copy=False)
    if ggml_type == _F16:
        return np.asarray(data).astype(np.float16, copy=False)
    if ggml_type == _BF16:  # round to nearest even; a NaN stays a quiet NaN (gguf-py's uint8 rows)
        rows = np.ascontiguousarray(data, dtype=np.float32)
        bits = rows.view(np.uint32).astype(np.uint64)
        halves = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        nan = (bits & 0x7FFFFFFF) > 0x7F800000
        halves[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
        return halves.view(np.uint8).reshape(*rows.shape[:-1], rows.shape[-1] * 2) if rows.ndim else halves.view(np.uint8)
    if plain is not None:
        raise NotImplementedError(f"onnxq quantizes to block formats, F32, F16 and BF16, not {name}")
    rows = np.ascontiguousarray(data, dtype=np.float32)
    return _onnxq._quantize_ggml(rows, ggml_type, imatrix, threads)
