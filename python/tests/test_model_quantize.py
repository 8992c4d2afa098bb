"""onnxq.quantize: whole models through the library's model quantizer, as `onnxq quantize` does it:
ggml's bytes for the common rows, the plan as dicts (dry_run writes nothing), overrides and keep,
safetensors input, refusals as exceptions leaving the destination as it was."""

import subprocess
import sys

import numpy as np
import pytest

import onnxq
from conftest import CLI_TESTS, TESTDATA
from gguf_tool import read_gguf

Q = TESTDATA / "quantize"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    subprocess.run([sys.executable, str(CLI_TESTS / "quantize_models.py"), str(TESTDATA), str(out)], check=True)
    return out


def tensor(path, name):
    _, tensors, _ = read_gguf(open(path, "rb").read())
    return [t for t in tensors if t[0] == name.encode()][0]


def test_bytes_equal_ggml_and_the_plan_is_returned(models, tmp_path):
    dst = tmp_path / "q8.gguf"
    plan = onnxq.quantize(models / "tiny.gguf", dst, "q8_0", threads=1)
    assert [row["name"] for row in plan][:3] == ["token_embd.weight", "blk.0.attn_norm.weight", "blk.0.attn_q.weight"]
    q = [row for row in plan if row["name"] == "blk.0.attn_q.weight"][0]
    assert q["from_type"] == "F32" and q["to_type"] == "Q8_0" and not q["copied"] and q["shape"] == [256, 32]
    want = (Q / "common.q8_0.bin").read_bytes()
    assert tensor(dst, "blk.0.attn_q.weight")[4] == want[: len(want) // 2]
    with onnxq.open(dst) as model:
        assert model.metadata["general.file_type"] == 7 and model.metadata["general.name"] == "tiny"


def test_importance_matrix(models, tmp_path):
    dst = tmp_path / "w.gguf"
    plan = onnxq.quantize(models / "tiny.gguf", dst, "q4_k", imatrix=models / "w.dat")
    assert [row["importance"] for row in plan if row["name"] == "blk.0.attn_q.weight"] == [True]
    want = (Q / "common.q4_k.bin").read_bytes()
    assert tensor(dst, "blk.0.attn_q.weight")[4] == want[len(want) // 2:]


def test_dry_run_overrides_and_keep_write_nothing(models, tmp_path):
    dst = tmp_path / "never.gguf"
    plan = onnxq.quantize(models / "tiny.gguf", dst, "Q4_K_M", tensor_types={"blk.0.ffn_*": "q6_k"},
                          keep=["token_embd*"], dry_run=True)
    assert not dst.exists()
    rows = {row["name"]: row for row in plan}
    assert rows["blk.0.ffn_down.weight"]["to_type"] == "Q6_K"
    assert rows["token_embd.weight"]["copied"] and rows["token_embd.weight"]["to_type"] == "F16"
    assert onnxq.quantize(models / "tiny.gguf", None, "q4_k", tensor_types=[("blk.*", "q8_0")], dry_run=True)[2][
        "to_type"] == "Q8_0"


def test_safetensors_input(models, tmp_path):
    dst = tmp_path / "st.gguf"
    onnxq.quantize(models / "m.safetensors", dst, "q8_0", arch="flux")
    x = np.fromfile(Q / "common.input.f32", dtype="<f4").reshape(32, 256)
    with onnxq.open(dst) as model:
        assert model.metadata["general.architecture"] == "flux"
        assert [t.name for t in model.tensors][0] == "model.diffusion.z.weight"
        back = model["model.diffusion.a.weight"].numpy()
    assert back.shape == x.shape and np.abs(back - x).max() < 0.05 * np.abs(x).max()


def test_refusals_leave_the_destination_alone(models, tmp_path):
    dst = tmp_path / "old.gguf"
    dst.write_bytes(b"old")
    with pytest.raises(ValueError, match="q9"):
        onnxq.quantize(models / "tiny.gguf", dst, "q9")
    with pytest.raises(ValueError, match="importance matrix"):
        onnxq.quantize(models / "tiny.gguf", dst, "iq2_xxs")
    with pytest.raises(ValueError, match="blk.0.attn_q.weight"):
        onnxq.quantize(models / "q8.gguf", dst, "q4_k")
    with pytest.raises(ValueError, match="not a block format"):
        onnxq.quantize(models / "tiny.gguf", dst, "q4_k", tensor_types={"x": "q7_k"})
    with pytest.raises(FileNotFoundError):
        onnxq.quantize(tmp_path / "missing.gguf", dst, "q4_k")
    assert dst.read_bytes() == b"old"
