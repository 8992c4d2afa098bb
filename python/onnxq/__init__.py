"""onnxq: GGUF models and the DequantizePacked, Unpack, OneHot and Unsqueeze operators for numpy.

A thin layer over onnxq's C++ library: every value is decoded there (bit for bit ggml's), on
OpenMP threads, straight into arrays that numpy allocates, with the GIL released.

    import onnxq
    with onnxq.open("model.gguf") as m:      # also https://..., hf://OWNER/REPO[@REV]/PATH, split shards
        m.metadata                           # dict: key -> value (numeric arrays as numpy arrays)
        m.tensors                            # list of Tensor: name, type, format, shape, ne, nbytes ...
        t = m["blk.0.attn_q.weight"]
        t.numpy()                            # float32; dtype="float16" | "bfloat16" | "float64"
        t.numpy(out=buf)                     # into your own array (reused: no page faults), returns buf
        t.raw()                              # uint8 view of the packed bytes (zero-copy for local files)
    onnxq.dequantize(x, format="gguf:q4_0", shape=[2, 32])    # DequantizePacked itself
    from onnxq import quants                 # gguf-py's quants.dequantize(data, qtype), same results

Errors: onnxq.InvalidInputError (a ValueError) for input that breaks a rule, OSError
(FileNotFoundError ...) for I/O, ValueError/TypeError for a wrong argument.
"""

import collections.abc as _collections_abc
import os as _os
from typing import List, NamedTuple, Optional

from ._onnxq import (
    InvalidInputError,
    Model,
    Tensor,
    TensorInfo,
    __version__,
    convert_endian,
    dequantize,
    edit,
    export_onnx,
    merge,
    onehot,
    open,
    report,
    split,
    unpack,
    unsqueeze,
)
from . import _onnxq


class Format(NamedTuple):
    """One row of onnxq's format table: a GGML tensor type that onnxq reads."""

    ggml_type: int
    """The GGML type number (gguf-py's GGMLQuantizationType value)."""
    type: str
    """The GGUF spelling: "Q4_K", "F16" ..."""
    format_id: Optional[str]
    """The DequantizePacked format id ("gguf:q4_k"); None for the plain types."""
    block_elements: int
    """Elements per block (1 for the plain types)."""
    block_bytes: int
    """Bytes per block (the element size for the plain types)."""
    bits_per_weight: float
    """8 * block_bytes / block_elements."""
    plain_dtype: Optional[str]
    """The numpy dtype name of a plain type ("float32", "int8" ...); None for block formats."""


def formats() -> List[Format]:
    """The formats onnxq decodes: the 27 DequantizePacked block formats, then the plain types."""
    return [Format(*row) for row in _onnxq._format_rows()]


class HashRow(NamedTuple):
    """One line of a llama-gguf-hash manifest: a hash of one tensor's bytes or of the whole model's."""

    type: str
    """"xxh64", "xxh3", "sha1", "sha256" or "uuid"."""
    hash: str
    """Lowercase hex as llama-gguf-hash prints it (the uuid as 8-4-4-4-12)."""
    tensor: Optional[str]
    """The tensor's name; None for a row of the whole model."""


class HashCheck(NamedTuple):
    """What onnxq.hash(..., check=MANIFEST) found, as `onnxq hash --check` reports it."""

    rows: List[HashRow]
    results: List[str]
    """For each row: "ok", "mismatch" or "not found" (no entry of that type and name)."""
    ok: int
    mismatched: int
    not_found: int


def hash(path, types=None, *, model_only=False, threads=None, check=None):
    """Hashes a GGUF model's tensor data as `onnxq hash` and llama-gguf-hash do.

    Rows come in the manifest's order: for each tensor one row per type (none with model_only;
    never uuid, which names the model only), then one row of the whole model per type. The model's
    hash covers every tensor's stored bytes in tensor order, without the padding between them.
    types: names among "xxh64", "xxh3", "sha1", "sha256", "uuid" (ValueError for another); None is
    xxh64, or with check the strongest type the manifest holds.
    check: a manifest (llama-gguf-hash's or `onnxq hash`'s) to verify: the result is then a HashCheck,
    its entries named FILE:TENSOR and FILE with FILE the path as given here (os.fspath).
    threads: None is the library's default. The GIL is released while the file is read.
    """
    if check is not None:
        file = _os.fspath(path)
        rows = _onnxq._hash_check_rows(path, _os.fsdecode(file), check, types, model_only, threads)
        results = [row[3] for row in rows]
        return HashCheck([HashRow(*row[:3]) for row in rows], results, results.count("ok"),
                         results.count("mismatch"), results.count("not found"))
    return [HashRow(*row) for row in _onnxq._hash_rows(path, ("xxh64",) if types is None else types, model_only,
                                                      threads)]


def quantize(src, dst, type, *, tensor_types=None, keep=None, imatrix=None, allow_requantize=False, arch=None,
             dry_run=False, threads=None):
    """Quantizes a whole model to GGUF, as `onnxq quantize SRC -o DST --type TYPE` does.

    src: a .gguf (any shard of a split model), a .safetensors file or a model.safetensors.index.json.
    type: a block format for every eligible weight ("q4_k", "q8_0", ...) or a llama-quantize preset
    ("Q4_K_M", ...). tensor_types: {glob: type} or (glob, type) pairs, the first match wins over the
    preset; keep: globs of tensors copied as they are; imatrix: llama-imatrix's GGUF or .dat file;
    arch: general.architecture for safetensors input. dry_run: plan only, write nothing (dst may be
    None). Returns the plan, one dict per tensor in the input's order: name, shape (GGUF order),
    from_type, to_type, copied, bytes_before, bytes_after, importance, reason. Refusals raise
    ValueError (InvalidInputError for a bad file), OSError for I/O; DST is then left as it was.
    The GIL is released while the model is read, quantized and written.
    """
    pairs = list(tensor_types.items()) if isinstance(tensor_types, dict) else list(tensor_types or [])
    return _onnxq._quantize_model(src, dst, type, pairs, list(keep or []), imatrix, allow_requantize, arch,
                                  dry_run, threads)


from . import quants  # noqa: E402  (uses the names above)

__all__ = [
    "Format",
    "InvalidInputError",
    "Model",
    "Tensor",
    "TensorInfo",
    "__version__",
    "convert_endian",
    "dequantize",
    "edit",
    "export_onnx",
    "formats",
    "hash",
    "HashCheck",
    "HashRow",
    "merge",
    "quantize",
    "onehot",
    "open",
    "quants",
    "report",
    "split",
    "unpack",
    "unsqueeze",
]

for _name in ("InvalidInputError", "Model", "Tensor", "TensorInfo", "convert_endian", "dequantize", "edit", "export_onnx",
              "merge",
              "onehot", "open", "split", "unpack",
              "unsqueeze"):
    globals()[_name].__module__ = __name__
del _name

# Model is a collections.abc.Mapping of tensor names to Tensors: the binding gives __getitem__
# (a dict lookup), __iter__, __len__, __contains__ and keys() (a list, in file order); the rest of
# the protocol is Mapping's own.
# (Equality stays identity, so a Model stays hashable.)
for _name in ("get", "items", "values"):
    setattr(Model, _name, getattr(_collections_abc.Mapping, _name))
del _name
_collections_abc.Mapping.register(Model)
