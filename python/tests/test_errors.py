"""Errors are Python exceptions with the library's (the CLI's) messages: InvalidInputError (a
ValueError) for input that breaks a rule, OSError subclasses for I/O, TypeError/ValueError for a
wrong argument."""

import errno
import os
import struct

import numpy as np
import pytest

import onnxq
from conftest import CLI_TESTS, ZOO


def test_missing_file_is_file_not_found(tmp_path):
    path = tmp_path / "absent.gguf"
    with pytest.raises(FileNotFoundError) as e:
        onnxq.open(path)
    assert e.value.errno == errno.ENOENT
    assert e.value.strerror == f"cannot open {path}: No such file or directory"


def test_directory_is_a_directory_error(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory, expected a file"):
        onnxq.open(tmp_path)


def test_invalid_input_names_the_file_and_what_was_expected(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGML" + bytes(60))
    with pytest.raises(onnxq.InvalidInputError) as e:
        onnxq.open(bad)
    assert isinstance(e.value, ValueError)
    assert str(bad) in str(e.value) and "magic" in str(e.value)
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(ZOO.read_bytes()[:1000])
    with pytest.raises(onnxq.InvalidInputError, match=str(truncated)):
        onnxq.open(truncated)
    # a tensor whose data would lie past the end of the file
    data = bytearray(ZOO.read_bytes())
    short = tmp_path / "short.gguf"
    short.write_bytes(bytes(data[:-100]))
    with pytest.raises(onnxq.InvalidInputError, match=str(short)):
        onnxq.open(short)
    assert onnxq.InvalidInputError.__module__ == "onnxq"


def test_decode_arguments():
    with onnxq.open(ZOO) as m:
        t = m["q4_0.weight"]
        with pytest.raises(ValueError, match="cannot decode Q4_0 to INT8; expected FLOAT, FLOAT16, BFLOAT16 or DOUBLE"):
            t.numpy("int8")
        with pytest.raises(ValueError, match="dtype: unknown dtype 'float33'"):
            t.numpy("float33")
        with pytest.raises(TypeError, match="dtype must be"):
            t.numpy(object())
        with pytest.raises(ValueError, match="threads must be a positive int or None"):
            t.numpy(threads=0)
        with pytest.raises(TypeError, match="threads must be"):
            t.numpy(threads="2")
        with pytest.raises(ValueError, match="shards must be"):
            onnxq.open(ZOO, shards="some")
        with pytest.raises(TypeError):
            onnxq.open(42)


def test_operator_errors_carry_the_operator_messages():
    x = np.zeros(36, np.uint8)
    with pytest.raises(onnxq.InvalidInputError, match=r"DequantizePacked: input x has 36 bytes, but shape \[96\]"):
        onnxq.dequantize(x, "gguf:q4_0", [96])  # 96 elements are 3 blocks, 54 bytes
    with pytest.raises(ValueError, match="unknown format 'gguf:Q4_0'"):
        onnxq.dequantize(x, "gguf:Q4_0", [64])
    with pytest.raises(ValueError, match="last dimension 40 of shape \\[40\\] is not a multiple of 32"):
        onnxq.dequantize(x, "gguf:q4_0", [40])
    with pytest.raises(onnxq.InvalidInputError, match="input x must be UINT8, got FLOAT"):
        onnxq.dequantize(np.zeros(9, np.float32), "gguf:q4_0", [64])
    with pytest.raises(onnxq.InvalidInputError, match=r"input x must be 1-D, got shape \[2, 18\]"):
        onnxq.dequantize(np.zeros((2, 18), np.uint8), "gguf:q4_0", [64])
    with pytest.raises(ValueError, match="output_dtype"):
        onnxq.dequantize(x, "gguf:q4_0", [64], dtype="int32")
    with pytest.raises(TypeError, match="x has dtype object"):
        onnxq.dequantize(np.array([None]), "gguf:q4_0", [64])
    with pytest.raises(ValueError, match="Unpack"):
        onnxq.unpack(np.zeros(3, np.uint8), 8, bits=9)
    with pytest.raises(ValueError, match="Unsqueeze: axis 5 is out of range"):
        onnxq.unsqueeze(np.zeros(3), [5])
    with pytest.raises(ValueError, match="more than once"):
        onnxq.unsqueeze(np.zeros(3), [0, 0])
    with pytest.raises(ValueError, match="version must be 9 or 11"):
        onnxq.onehot([1], 3, version=10)



def test_file_shrinking_while_open_is_an_os_error(tmp_path):
    """A mapped input cut short (a download still running, a converter rewriting the model) used
    to kill the interpreter with SIGBUS; it is an OSError naming the file, as in the CLI."""
    import sys
    sys.path.insert(0, str(CLI_TESTS))
    from fault_tool import big_gguf
    path = tmp_path / "shrinks.gguf"
    big_gguf(path, 8)
    with onnxq.open(path) as m:
        tensor = m["big.weight"]
        os.truncate(path, 4096)
        with pytest.raises(OSError, match=f"{path} changed size while it was being read"):
            tensor.numpy()
