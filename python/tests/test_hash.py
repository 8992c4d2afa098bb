"""onnxq.hash gives the rows `onnxq hash` prints (llama-gguf-hash's manifest), for every type, in
the manifest's order; the sha256 rows also agree with hashlib over the tensors' raw bytes."""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

import onnxq
from conftest import ZOO

CLI = Path(os.environ.get("ONNXQ_BUILD_DIR", Path(__file__).resolve().parents[2] / "build")) / "onnxq"
TYPES = ("xxh64", "xxh3", "sha1", "sha256", "uuid")


def cli_rows(path, *flags):
    """The CLI's manifest lines as (type, hash, tensor or None)."""
    out = subprocess.run([str(CLI), "hash", str(path), *flags], check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        type_, hex_, name = line.split(None, 2)
        tensor = name[len(str(path)) + 1:] if name != str(path) else None
        rows.append((type_, hex_, tensor))
    return rows


@pytest.mark.parametrize("type_", TYPES)
def test_each_type_matches_the_cli(type_):
    got = onnxq.hash(ZOO, (type_,))
    assert [tuple(r) for r in got] == cli_rows(ZOO, f"--{type_}")
    assert all(isinstance(r, onnxq.HashRow) for r in got)
    assert got[-1].tensor is None and got[-1].type == type_


def test_all_types_in_manifest_order_and_model_only():
    got = onnxq.hash(str(ZOO), TYPES, threads=1)
    assert [tuple(r) for r in got] == cli_rows(ZOO, "--all", "--uuid")
    only = onnxq.hash(os.fsencode(ZOO), ["sha256", "xxh64"], model_only=True, threads=2)
    assert [tuple(r) for r in only] == cli_rows(ZOO, "--xxh64", "--sha256", "--no-layer")
    assert [r.type for r in only] == ["xxh64", "sha256"]  # llama-gguf-hash's order, not the caller's


def test_sha256_agrees_with_hashlib():
    rows = onnxq.hash(ZOO, ("sha256",))
    whole = hashlib.sha256()
    with onnxq.open(ZOO) as m:
        want = []
        for t in m.tensors:
            data = t.raw().tobytes()
            whole.update(data)
            want.append(("sha256", hashlib.sha256(data).hexdigest(), t.name))
    assert [tuple(r) for r in rows] == want + [("sha256", whole.hexdigest(), None)]


def test_bad_type_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="unknown hash type 'md5'"):
        onnxq.hash(ZOO, ("md5",))
    with pytest.raises(ValueError, match="empty"):
        onnxq.hash(ZOO, ())
    with pytest.raises(TypeError):
        onnxq.hash(ZOO, "xxh64")
    absent = tmp_path / "absent.gguf"
    with pytest.raises(FileNotFoundError, match=str(absent)):
        onnxq.hash(absent)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGML" + bytes(60))
    with pytest.raises(onnxq.InvalidInputError, match="magic"):
        onnxq.hash(bad)


def test_check_a_manifest_as_the_cli_does(tmp_path):
    """onnxq.hash(..., check=) verifies a manifest with the CLI's names and verdicts."""
    manifest = tmp_path / "zoo.manifest"
    manifest.write_bytes(subprocess.run([str(CLI), "hash", str(ZOO), "--all"], check=True,
                                        stdout=subprocess.PIPE).stdout)
    got = onnxq.hash(str(ZOO), check=manifest)
    assert isinstance(got, onnxq.HashCheck)
    assert (got.ok, got.mismatched, got.not_found) == (39, 0, 0)  # sha256, the strongest, of 38 tensors and the model
    assert {r.type for r in got.rows} == {"sha256"} and set(got.results) == {"ok"}
    text = manifest.read_text().replace(got.rows[0].hash, "0" * 64)
    manifest.write_text(text)
    bad = onnxq.hash(str(ZOO), ["xxh64", "sha256"], check=manifest)
    assert (bad.ok, bad.mismatched, bad.not_found) == (77, 1, 0)
    assert bad.results[bad.rows.index(got.rows[0])] == "mismatch"
    other = onnxq.hash(os.path.relpath(ZOO), check=manifest)  # named otherwise: no entry matches
    assert other.not_found == len(other.rows) and other.ok == 0
    empty = tmp_path / "empty.manifest"
    empty.write_text("nothing here\n")
    with pytest.raises(ValueError, match="no line starts with a known hash type"):
        onnxq.hash(ZOO, check=empty)
