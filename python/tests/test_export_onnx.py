"""onnxq.export_onnx: the same graph as `onnxq export -o model.onnx`, read back with Python's onnx
package (Debian's python3-onnx): every initializer's external data is the GGUF tensor's bytes (read
by gguf_tool.py), each output is named after its tensor with its shape and dtype, and the errors
are those of the library."""

import shutil

import onnx
import pytest

import gguf_tool
import onnxq
from conftest import ZOO


@pytest.fixture()
def zoo(tmp_path):
    path = tmp_path / "zoo.gguf"
    shutil.copy(ZOO, path)
    return path


def gguf_bytes(path):
    _, tensors, _ = gguf_tool.read_gguf(path.read_bytes())
    return {t[0].decode(): (t[4], list(reversed(t[1]))) for t in tensors}


def test_every_tensor_points_into_the_gguf(zoo, tmp_path):
    size = onnxq.export_onnx(zoo, tmp_path / "zoo.onnx")
    assert size == (tmp_path / "zoo.onnx").stat().st_size < 32768
    model = onnx.load(str(tmp_path / "zoo.onnx"))  # with its external data
    raw = gguf_bytes(zoo)
    assert len(model.graph.initializer) == len(raw) == 38
    for init in model.graph.initializer:
        data, _ = raw[init.name.rsplit(":", 1)[0]]
        assert init.raw_data and data.startswith(init.raw_data), init.name
        assert len(data) - len(init.raw_data) < 32, init.name
    for out in model.graph.output:
        assert [d.dim_value for d in out.type.tensor_type.shape.dim] == raw[out.name][1], out.name
    ops = {n.output[0]: n.op_type for n in model.graph.node}
    assert ops["q4_k.weight"] == "DequantizePacked" and ops["f16.weight"] == "Identity", ops
    props = {p.key: p.value for p in model.metadata_props}
    assert props["onnxq.gguf"] == "zoo.gguf", props


def test_choice_and_dtype(zoo, tmp_path):
    onnxq.export_onnx(zoo, tmp_path / "some.onnx", tensors=["f32.weight"], filter="q8_*", dtype="float16")
    model = onnx.load(str(tmp_path / "some.onnx"), load_external_data=False)
    names = sorted(o.name for o in model.graph.output)
    assert names == ["f32.weight", "q8_0.weight", "q8_1.weight", "q8_k.weight"], names
    assert {o.type.tensor_type.elem_type for o in model.graph.output} == {onnx.TensorProto.FLOAT16}
    cast = next(n for n in model.graph.node if n.output[0] == "f32.weight")
    assert cast.op_type == "Cast" and cast.attribute[0].i == onnx.TensorProto.FLOAT16
    q8 = next(n for n in model.graph.node if n.output[0] == "q8_0.weight")
    attrs = {a.name: a for a in q8.attribute}
    assert attrs["format"].s == b"gguf:q8_0" and attrs["output_dtype"].i == onnx.TensorProto.FLOAT16
    # The CLI's selection: a tensor named and matched is chosen once; a near miss gets candidates.
    onnxq.export_onnx(zoo, tmp_path / "once.onnx", tensors=["q8_0.weight"], filter="q8_*")
    once = onnx.load(str(tmp_path / "once.onnx"), load_external_data=False)
    assert [o.name for o in once.graph.output] == ["q8_0.weight", "q8_1.weight", "q8_k.weight"]
    with pytest.raises(onnxq.InvalidInputError, match="no tensor named 'q4_k'; did you mean: q4_k.weight"):
        onnxq.export_onnx(zoo, tmp_path / "x.onnx", tensors=["q4_k"])


def test_errors(zoo, tmp_path):
    (tmp_path / "below").mkdir()
    with pytest.raises(onnxq.InvalidInputError, match="not inside"):
        onnxq.export_onnx(zoo, tmp_path / "below" / "zoo.onnx")
    assert not (tmp_path / "below" / "zoo.onnx").exists()
    with pytest.raises(onnxq.InvalidInputError, match="no tensor named 'nothing'"):
        onnxq.export_onnx(zoo, tmp_path / "x.onnx", tensors=["nothing"])
    with pytest.raises(ValueError):
        onnxq.export_onnx(zoo, tmp_path / "x.onnx", dtype="int8")
    assert not (tmp_path / "x.onnx").exists()
