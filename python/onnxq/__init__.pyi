"""Type stubs for onnxq (the names python/onnxq/__init__.py exports; see their docstrings)."""

import os
from types import TracebackType
from typing import Any, Dict, ItemsView, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Type, Union, ValuesView

import numpy as np
import numpy.typing as npt

from . import quants as quants

__version__: str

DTypeSpec = Union[str, np.dtype, type]
# out=: a writable C-contiguous numpy array or buffer-protocol object (memoryview, bytearray ...).
OutBuffer = Union[np.ndarray, memoryview, bytearray, Any]
PathSpec = Union[str, bytes, os.PathLike]

class InvalidInputError(ValueError):
    """A file, tensor or value that breaks a rule of its format or of an operator."""

class TensorInfo:
    """A tensor's descriptor in a GGUF model."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def ggml_type(self) -> int: ...
    @property
    def format(self) -> Optional[str]: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def ne(self) -> Tuple[int, ...]: ...
    @property
    def n_elements(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def shard(self) -> int: ...

class Tensor(TensorInfo):
    """A tensor of an open Model: its descriptor and its data."""

    def numpy(self, dtype: Optional[DTypeSpec] = None, threads: Optional[int] = None, *,
              out: Optional[OutBuffer] = None) -> Any:
        """Decodes the tensor into a new numpy array of its shape, or into `out` (exactly n_elements
        elements of any shape, writable, C-contiguous; its dtype is the output dtype) and returns
        out itself. A tensor of a type onnxq does not know (type "type 142", format None) raises
        InvalidInputError naming its type id."""
    def raw(self) -> npt.NDArray[np.uint8]:
        """The packed bytes as stored: a read-only view of the mapping for a local file (bytes past
        the end of a file that shrinks meanwhile read as zeros). For a type onnxq does not know, one
        flat array of the bytes its layout leaves it (padding included)."""

class Model(Mapping[str, Tensor]):
    """A GGUF model opened by onnxq.open(): a mapping of tensor names to Tensors."""

    @property
    def metadata(self) -> dict: ...
    @property
    def tensors(self) -> List[Tensor]: ...
    @property
    def path(self) -> str: ...
    @property
    def shards(self) -> Tuple[str, ...]: ...
    @property
    def missing_shards(self) -> Tuple[int, ...]: ...
    @property
    def closed(self) -> bool: ...
    def __getitem__(self, name: str) -> Tensor: ...
    def __contains__(self, name: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def keys(self) -> List[str]: ...
    def get(self, name: str, default: Optional[Tensor] = None) -> Optional[Tensor]: ...
    def items(self) -> ItemsView[str, Tensor]: ...
    def values(self) -> ValuesView[Tensor]: ...
    def close(self) -> None:
        """Releases the model's files; arrays already returned stay valid."""
    def __enter__(self) -> "Model": ...
    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None: ...

class Format(NamedTuple):
    """One row of onnxq's format table."""

    ggml_type: int
    type: str
    format_id: Optional[str]
    block_elements: int
    block_bytes: int
    bits_per_weight: float
    plain_dtype: Optional[str]

class HashRow(NamedTuple):
    """One manifest line: a hash of a tensor's bytes (tensor: its name) or of the model (tensor: None)."""

    type: str
    hash: str
    tensor: Optional[str]

class HashCheck(NamedTuple):
    """onnxq.hash(..., check=MANIFEST): the rows, each one's result ("ok", "mismatch", "not found"), the counts."""

    rows: List[HashRow]
    results: List[str]
    ok: int
    mismatched: int
    not_found: int

def hash(path: PathSpec, types: Optional[Sequence[str]] = None, *, model_only: bool = False,
         threads: Optional[int] = None, check: Optional[PathSpec] = None) -> Union[List[HashRow], HashCheck]:
    """llama-gguf-hash's manifest rows: per tensor, then the model, for each of xxh64, xxh3, sha1, sha256, uuid;
    with check, a HashCheck of those rows against the manifest."""

def open(path: PathSpec, shards: str = "all") -> Model:
    """Opens a GGUF model (a file, split shards, http(s):// or hf:// URL) and reads its header."""

def edit(src: PathSpec, dst: Optional[PathSpec], *, set: Optional[Dict[str, Any]] = None,
         remove: Sequence[str] = (), rename: Optional[Dict[str, str]] = None,
         chat_template: Optional[str] = None, set_json: Optional[Dict[str, str]] = None,
         special_tokens: Optional[Dict[str, Union[str, int]]] = None,
         chat_template_file: Optional[PathSpec] = None, dry_run: bool = False) -> List[Tuple[str, str, str]]:
    """Writes src with changed metadata to dst (None: replaces src); tensors copied byte for byte.
    Returns the changes as (kind, key, detail); dry_run=True writes nothing but refuses what the
    write would (ValueError)."""

def convert_endian(src: PathSpec, dst: Optional[PathSpec], *, to: str) -> None:
    """Writes src in the byte order `to` ('big', 'little', 'native') to dst (None: replaces src)."""

def split(src: PathSpec, prefix: PathSpec, *, max_size: Optional[int] = None, max_tensors: Optional[int] = None,
          no_tensor_first_split: bool = False) -> List[str]:
    """Splits src into PREFIX-NNNNN-of-NNNNN.gguf shards (max_size counts whole files); returns their paths."""

def merge(shard: PathSpec, dst: PathSpec) -> str:
    """Merges the split model of `shard` (any shard) into one file dst, without split.* keys; returns dst."""

def quantize(src: PathSpec, dst: Optional[PathSpec], type: str, *,
             tensor_types: Optional[Union[Mapping[str, str], Sequence[Tuple[str, str]]]] = None,
             keep: Optional[Sequence[str]] = None, imatrix: Optional[PathSpec] = None, allow_requantize: bool = False,
             arch: Optional[str] = None, dry_run: bool = False, threads: Optional[int] = None) -> List[Dict[str, Any]]:
    """Quantizes a whole model (GGUF or safetensors) to GGUF; returns the plan, one dict per tensor."""

def export_onnx(path: PathSpec, onnx_path: PathSpec, *, tensors: Optional[Sequence[str]] = None,
                filter: Optional[str] = None, dtype: Optional[DTypeSpec] = None) -> int:
    """Writes an ONNX graph over the GGUF's own bytes (external data into the .gguf); returns its size."""

def report(model: PathSpec, output: PathSpec, *, compare: Optional[PathSpec] = None, values: Optional[str] = None,
           threads: Optional[int] = None) -> None:
    """Writes one self-contained HTML page of the model (onnxq report): map, bytes, tensors, values, compare."""

def formats() -> List[Format]:
    """The formats onnxq decodes: the 27 block formats, then the plain types."""

def dequantize(x: npt.ArrayLike, format: str, shape: Sequence[int], dtype: Optional[DTypeSpec] = None,
               threads: Optional[int] = None, *, out: Optional[OutBuffer] = None) -> Any:
    """DequantizePacked-29: packed blocks to a float array of the given shape (float32 unless
    dtype says otherwise), or into `out` (product(shape) elements, apart from x), returned itself."""

def unpack(x: npt.ArrayLike, count: Optional[int] = None, *, bits: Optional[int] = None,
           radix: Optional[int] = None, group_size: Optional[int] = None, axis: int = -1) -> npt.NDArray[np.uint8]:
    """Unpack-29: LSB-first codes in uint8/uint32 words to one uint8 per code."""

def onehot(indices: npt.ArrayLike, depth: npt.ArrayLike, values: npt.ArrayLike = (0, 1), axis: int = -1, *,
           version: int = 9) -> np.ndarray:
    """OneHot-9 (version=11: negative indices count from depth)."""

def unsqueeze(x: npt.ArrayLike, axes: Sequence[int]) -> np.ndarray:
    """Unsqueeze-23: a view of x with size-1 dimensions inserted at `axes`."""
