"""onnxq.report: the page `onnxq report` writes. Its data (the JSON inside the page) is read back and
checked against the file (the manifest's tensors), numpy (statistics, histogram counts) and the
page's rules: a chat template that tries to end the script element stays inside it, the output is
complete or absent. The page in a browser: tests/browser/report_test.mjs."""

import json
import re
import shutil

import numpy as np
import pytest

import onnxq
from conftest import ZOO, ZOO_TENSORS

DATA = re.compile(r'<script id="report-data" type="application/json">(.*?)</script>', re.S)


def page_data(path):
    text = path.read_text(encoding="utf-8")
    found = DATA.findall(text)
    assert len(found) == 1
    return text, json.loads(found[0])


def test_tensors_and_totals(tmp_path):
    out = tmp_path / "zoo.html"
    onnxq.report(ZOO, out)
    _, data = page_data(out)
    assert [t["name"] for t in data["tensors"]] == [t["name"] for t in ZOO_TENSORS]
    model = onnxq.open(ZOO)
    for row in data["tensors"]:
        info = model[row["name"]]
        assert row["bytes"] == info.nbytes and row["layer"] is None and row["kind"] is None
    assert sum(t["bytes"] for t in data["types"]) == sum(t["bytes"] for t in data["tensors"])
    assert data["values"] == [] and data["compare"] is None and data["kinds"] == []


def test_values_agree_with_numpy(tmp_path):
    out = tmp_path / "zoo.html"
    onnxq.report(ZOO, out, values="q[48]_k.weight", threads=2)
    _, data = page_data(out)
    assert [v["name"] for v in data["values"]] == ["q4_k.weight", "q8_k.weight"]
    for v in data["values"]:
        x = onnxq.open(ZOO)[v["name"]].numpy().astype(np.float64).ravel()
        assert v["count"] == x.size and v["min"] == x.min() and v["max"] == x.max()
        assert v["mean"] == pytest.approx(x.mean(), rel=1e-12, abs=1e-12)
        assert v["std"] == pytest.approx(x.std(), rel=1e-9)
        h = v["histogram"]
        assert sum(h["counts"]) == x.size and len(h["counts"]) == 64
        edges = np.linspace(h["lo"], h["hi"], 65)
        want, _ = np.histogram(x, bins=edges)
        # numpy and the library may put a value sitting on an edge on either side; never farther.
        assert np.abs(np.cumsum(want) - np.cumsum(h["counts"])).max() <= 2
        assert sum(v["scales"]["log2_abs"]["counts"]) + v["scales"]["zero_or_nonfinite"] == v["blocks"]


def test_compare_with_itself_and_with_an_edit(tmp_path):
    out = tmp_path / "same.html"
    onnxq.report(ZOO, out, compare=ZOO)
    _, data = page_data(out)
    rows = data["compare"]["tensors"]
    assert len(rows) == len(ZOO_TENSORS) and data["compare"]["only_in_model"] == []
    assert all(r["nmse"] == 0 and r["rms"] == 0 and r["max_abs"] == 0 for r in rows if "skipped" not in r)


def test_compare_errors_against_numpy(tmp_path):
    # The zoo's q4_0 tensor against its own f32 decoding, written as a model of its own.
    x = onnxq.open(ZOO)["q4_0.weight"].numpy()
    noisy = (x + np.float32(0.01) * np.sign(x)).astype(np.float32)
    ref = tmp_path / "ref.gguf"
    import gguf_tool
    gguf_tool.write_gguf(ref, [], [[b"q4_0.weight", tuple(reversed(x.shape)), 0, 0, noisy.tobytes()],
                                   [b"extra", (4,), 0, 0, bytes(16)]], 32)
    out = tmp_path / "cmp.html"
    onnxq.report(ZOO, out, compare=ref)
    _, data = page_data(out)
    row = next(r for r in data["compare"]["tensors"] if r["name"] == "q4_0.weight")
    a, b = x.astype(np.float64), noisy.astype(np.float64)
    assert row["nmse"] == pytest.approx(((a - b) ** 2).sum() / (b ** 2).sum(), rel=1e-12)
    assert row["rms"] == pytest.approx(np.sqrt(((a - b) ** 2).mean()), rel=1e-12)
    assert row["max_abs"] == pytest.approx(np.abs(a - b).max(), rel=1e-12)
    assert data["compare"]["only_in_reference"] == ["extra"]
    assert len(data["compare"]["only_in_model"]) == len(ZOO_TENSORS) - 1


def test_a_chat_template_cannot_leave_the_script(tmp_path):
    template = "</script><script>alert(1)</script><!-- & -->\u2028"
    model = tmp_path / "chat.gguf"
    onnxq.edit(ZOO, model, chat_template=template, set={"general.name": "</SCRIPT>"})
    out = tmp_path / "chat.html"
    onnxq.report(model, out)
    text, data = page_data(out)
    assert data["overview"]["chat_template"] == template and data["overview"]["name"] == "</SCRIPT>"
    assert text.lower().count("</script") == 2 and text.count("<script") == 2  # the page's own two


def test_errors_leave_the_output_alone(tmp_path):
    out = tmp_path / "keep.html"
    out.write_text("old")
    with pytest.raises(OSError):
        onnxq.report(tmp_path / "missing.gguf", out)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(ZOO.read_bytes()[:100])
    with pytest.raises(ValueError):
        onnxq.report(bad, out)
    with pytest.raises(ValueError):
        onnxq.report(ZOO, out, threads=-1)
    assert out.read_text() == "old"
    shutil.copy(ZOO, tmp_path / "z.gguf")
    with pytest.raises(ValueError):
        onnxq.report(tmp_path / "z.gguf", tmp_path / "z.gguf")  # the output would replace its input
