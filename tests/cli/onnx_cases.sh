#!/usr/bin/env bash
# make-case --from-gguf: one DequantizePacked case per block format of the zoo model (the first
# rows of a real tensor), each loadable by Python's onnx, its input the tensor's GGUF bytes (read
# by gguf_tool.py) and its expected output ggml's decode (testdata expectations); `onnxq
# conformance` passes them all, and fails a case whose expected output has one byte changed.
source "$(dirname "$0")/common.bash"
TOOL="$(cd "$(dirname "$0")" && pwd)/gguf_tool.py"
cd "$WORK"

check "make-case --all-formats" "$ONNXQ" make-case --from-gguf "$TESTDATA/zoo.gguf" --all-formats --rows 2 -o cases
check "one case per block format: 27" test "$(ls cases | wc -l)" = 27
check "make-case --tensor, the whole tensor" \
  "$ONNXQ" make-case --from-gguf "$TESTDATA/zoo.gguf" --tensor cube_3d.q4_k -o cases/cube_3d_q4_k
check "make-case --tensor --dtype f16" \
  "$ONNXQ" make-case --from-gguf "$TESTDATA/zoo.gguf" --tensor q6_k.weight --dtype f16 -o cases/q6_k_f16
check "conformance passes every case" "$ONNXQ" conformance cases
check "conformance counted 29" grep -q '^29 passed, 0 failed, 0 skipped$' <("$ONNXQ" conformance cases)

check "onnx loads each case; input = GGUF bytes, output = ggml's decode" "$PYTHON" - "$TOOL" "$TESTDATA" <<'PY'
import importlib.util, os, sys
import numpy as np
import onnx
from onnx import numpy_helper
spec = importlib.util.spec_from_file_location("gguf_tool", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
testdata = sys.argv[2]
_, tensors, _ = tool.read_gguf(open(os.path.join(testdata, "zoo.gguf"), "rb").read())
raw = {t[0].decode(): t[4] for t in tensors}
for case in sorted(os.listdir("cases")):
    model = onnx.load(os.path.join("cases", case, "model.onnx"))
    tensor = model.graph.name
    x = onnx.TensorProto()
    x.ParseFromString(open(os.path.join("cases", case, "test_data_set_0", "input_0.pb"), "rb").read())
    assert raw[tensor].startswith(x.raw_data) and x.raw_data, case
    if case.startswith("dequantize_packed_"):
        y = onnx.TensorProto()
        y.ParseFromString(open(os.path.join("cases", case, "test_data_set_0", "output_0.pb"), "rb").read())
        want = np.load(os.path.join(testdata, "gguf", "expected", tensor + ".f32.npy"))
        got = numpy_helper.to_array(y)
        assert got.shape == (2, want.shape[-1]), (case, got.shape)
        assert got.tobytes() == want.reshape(-1, want.shape[-1])[:2].tobytes(), case
PY

# One byte changed in an expected output: that case fails, the others still pass.
"$PYTHON" - <<'PY'
path = "cases/dequantize_packed_q4_k/test_data_set_0/output_0.pb"
data = bytearray(open(path, "rb").read())
data[-3] ^= 0x01
open(path, "wb").write(bytes(data))
PY
expect_exit 2 "$ONNXQ" conformance cases
check "the changed case fails" grep -q '^FAIL dequantize_packed_q4_k' "$WORK/out"
check "the others pass" grep -q '^28 passed, 1 failed, 0 skipped$' "$WORK/out"

expect_exit 1 "$ONNXQ" make-case --from-gguf "$TESTDATA/zoo.gguf" -o x
check "--from-gguf without --tensor or --all-formats is a usage error" grep -q 'needs --tensor NAME or --all-formats' "$WORK/err"
expect_exit 2 "$ONNXQ" make-case --from-gguf "$TESTDATA/zoo.gguf" --tensor f16.weight -o x
check "a plain tensor is refused" grep -q "not a DequantizePacked block format" "$WORK/err"
finish
