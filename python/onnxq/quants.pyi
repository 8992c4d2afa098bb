"""Type stubs for onnxq.quants: gguf-py's gguf.quants.dequantize and quantize on onnxq's library."""

from typing import Any, Optional, Sequence, SupportsIndex, Tuple, Union

import numpy as np
import numpy.typing as npt

def quant_shape_to_byte_shape(shape: Sequence[int], quant_type: SupportsIndex) -> Tuple[int, ...]:
    """The byte shape of a tensor of `shape` in `quant_type`."""

def quant_shape_from_byte_shape(shape: Sequence[int], quant_type: SupportsIndex) -> Tuple[int, ...]:
    """The element shape of `quant_type` data of byte shape `shape`."""

def dequantize(data: npt.ArrayLike, qtype: SupportsIndex, *, threads: Optional[int] = None,
               out: Optional[Any] = None) -> Any:
    """Decodes packed GGML data as gguf-py's gguf.quants.dequantize(data, qtype) does; with `out`
    (a writable C-contiguous buffer of as many elements, apart from data), into out in its dtype,
    returning out itself."""

def quantize(data: npt.ArrayLike, qtype: Union[SupportsIndex, str], *, imatrix: Optional[npt.ArrayLike] = None,
             threads: Optional[int] = None) -> Any:
    """Quantizes float rows as gguf-py's gguf.quants.quantize(data, qtype) does, byte for byte as ggml's
    ggml_quantize_chunk: uint8 of shape data.shape[:-1] + (bytes per row,)."""
