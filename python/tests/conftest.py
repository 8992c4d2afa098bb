"""Shared fixtures for the Python tests: where testdata and the test helpers are, the manifest of
ggml's expectations, and bit-exact array comparison. ctest puts the built package first on
PYTHONPATH (python/tests/tests.cmake)."""

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(__file__).resolve().parents[2]
TESTDATA = Path(os.environ.get("ONNXQ_TESTDATA_DIR", SOURCE_DIR / "testdata"))
CLI_TESTS = SOURCE_DIR / "tests" / "cli"  # gguf_tool.py and range_server.py
sys.path.insert(0, str(CLI_TESTS))

MANIFEST = json.loads((TESTDATA / "manifest.json").read_text())
ZOO = TESTDATA / "zoo.gguf"
ZOO_TENSORS = MANIFEST["files"]["zoo.gguf"]["tensors"]
BLOCK_FILES = MANIFEST["blocks"]  # quantizer blocks and edge blocks of every format and plain type


def bits_of(a: np.ndarray) -> np.ndarray:
    """The array's elements as unsigned integers of the same width (for bit-exact comparison)."""
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    """Same shape, dtype and bits; any NaN equals any NaN (ggml leaves NaN payloads unspecified)."""
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, want {want.dtype}"
    same = bits_of(got) == bits_of(want)
    if got.dtype.kind == "f":
        same |= np.isnan(got) & np.isnan(want)
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (f"{what}: {bad.size} of {got.size} elements differ, first at {bad[0]}: "
                           f"got {got.reshape(-1)[bad[0]]!r}, want {want.reshape(-1)[bad[0]]!r}")


def expected(entry: dict, key: str = "expected") -> np.ndarray:
    """An expectation file named by a manifest entry (paths relative to testdata/gguf)."""
    return np.load(TESTDATA / "gguf" / entry[key])


def block_bytes(entry: dict) -> np.ndarray:
    return np.fromfile(TESTDATA / "gguf" / entry["bin"], dtype=np.uint8)


@pytest.fixture(scope="session")
def zoo_path() -> Path:
    return ZOO
