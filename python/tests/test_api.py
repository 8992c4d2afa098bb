"""The public API is documented and its type stubs match it: every public name has a docstring,
and python/onnxq/*.pyi declare the same functions, classes, methods and parameter names as the
module has (read from pybind11's signature lines and from inspect for the Python functions)."""

import ast
import inspect
import re
from pathlib import Path

import pytest

import onnxq
from onnxq import quants

STUBS = Path(onnxq.__file__).with_name("__init__.pyi")
QUANTS_STUBS = Path(quants.__file__).with_name("quants.pyi")


def stub_tree(path):
    return {node.name: node for node in ast.parse(path.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def stub_params(fn: ast.FunctionDef):
    a = fn.args
    return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg != "self"]


def runtime_params(obj):
    """Parameter names of a Python function, or of a pybind11 function from its signature line."""
    try:
        return [p for p in inspect.signature(obj).parameters if p != "self"]
    except (TypeError, ValueError):
        first = obj.__doc__.lstrip().splitlines()[0]
        inside = re.match(r"^\w+\((.*)\) ->", first).group(1)
        parts, depth, current = [], 0, ""
        for ch in inside:  # split at the commas outside brackets: `values: object = (0, 1)`
            depth += ch in "([{" and 1 or ch in ")]}" and -1 or 0
            if ch == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += ch
        parts.append(current)
        names = [re.match(r"\s*(\w+)", part).group(1) for part in parts if part.strip() not in ("", "*")]
        return [n for n in names if n != "self"]


def test_every_public_name_is_documented():
    for name in onnxq.__all__:
        obj = getattr(onnxq, name)
        if name == "__version__":
            assert re.fullmatch(r"\d+\.\d+\.\d+", obj)
            continue
        assert (obj.__doc__ or "").strip(), name
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_"):
                    assert (member.__doc__ or "").strip(), f"{name}.{attr}"
    for name in ("dequantize", "quant_shape_to_byte_shape", "quant_shape_from_byte_shape"):
        assert getattr(quants, name).__doc__.strip()
    assert quants.__doc__.strip() and onnxq.__doc__.strip()
    assert "ml_dtypes" in onnxq.Tensor.numpy.__doc__ and "uint16" in onnxq.Tensor.numpy.__doc__


def test_stubs_declare_the_module():
    stubs = stub_tree(STUBS)
    for name in onnxq.__all__:
        if name in ("quants", "__version__"):
            continue
        assert name in stubs, f"{name} missing from {STUBS.name}"
        obj = getattr(onnxq, name)
        if inspect.isclass(obj):
            declared = {n.name for n in stubs[name].body if isinstance(n, ast.FunctionDef)}
            public = {a for a in vars(obj) if not a.startswith("_")}
            if issubclass(obj, tuple):  # a NamedTuple: its fields are annotations in the stub
                public = set(obj._fields)
                declared = {n.target.id for n in stubs[name].body if isinstance(n, ast.AnnAssign)}
            assert public <= declared, f"{name}: {public - declared} missing from the stub"
            for method in ("numpy", "raw", "close", "keys"):
                if method in vars(obj) and method in declared:
                    fn = next(n for n in stubs[name].body if isinstance(n, ast.FunctionDef) and n.name == method)
                    assert stub_params(fn) == runtime_params(getattr(obj, method)), f"{name}.{method}"
        elif name != "Format":
            assert stub_params(stubs[name]) == runtime_params(obj), name


def test_quants_stubs():
    stubs = stub_tree(QUANTS_STUBS)
    for name in ("dequantize", "quant_shape_to_byte_shape", "quant_shape_from_byte_shape"):
        assert stub_params(stubs[name]) == runtime_params(getattr(quants, name)), name


def test_help_shows_the_api():
    text = inspect.getdoc(onnxq.open)
    assert text.splitlines()[0].startswith("open(path: object, shards: str = 'all') -> ")
    assert "hf://OWNER/REPO" in text and "FileNotFoundError" in text


@pytest.mark.parametrize("fake", [True, False])
def test_bfloat16_is_ml_dtypes_when_importable(tmp_path, fake):
    """With ml_dtypes importable, bfloat16 results are its dtype; without, uint16 bit patterns.
    A stand-in ml_dtypes (a 2-byte structured dtype named bfloat16) shows which one is used."""
    import subprocess
    import sys
    if fake:
        (tmp_path / "ml_dtypes.py").write_text('import numpy as np\nbfloat16 = np.dtype([("bfloat16", "<u2")])\n')
    code = ("import onnxq, numpy as np\n"
            "x = onnxq.dequantize(bytes([0, 0x3C] + [0x98] * 16), 'gguf:q4_0', [32], dtype='bfloat16')\n"
            "print(x.dtype.names[0] if x.dtype.names else x.dtype.name, x.view(np.uint16)[16])\n")
    env = dict(__import__("os").environ)
    env["PYTHONPATH"] = f"{tmp_path}:{env.get('PYTHONPATH', '')}"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["bfloat16" if fake else "uint16", str(0x3F80)]
