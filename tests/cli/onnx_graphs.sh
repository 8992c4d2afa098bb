#!/usr/bin/env bash
# onnxq run on graphs built by Python's onnx package: several nodes in any file order, a cycle and
# a missing input (errors naming the node), and external data that tries to leave the model's
# folder or its file: an absolute location, `..`, a symlink out, a range past the end or one that
# overflows, a length that disagrees with the shape, a directory and a FIFO. Each is an
# invalid-input error naming the initializer (exit 2), never a crash, a hang or a read outside.
source "$(dirname "$0")/common.bash"
cd "$WORK"
mkdir -p m
cp "$TESTDATA/zoo.gguf" m/zoo.gguf
"$ONNXQ" export m/zoo.gguf -o m/zoo.onnx --tensor q4_0.weight --tensor f16.weight

# graph.py OUT KIND: writes m/OUT.onnx, a variant of m/zoo.onnx.
cat >graph.py <<'PY'
import sys
import onnx
from onnx import helper
out, kind = sys.argv[1], sys.argv[2]
m = onnx.load("m/zoo.onnx", load_external_data=False)
g = m.graph
q4 = next(t for t in g.initializer if t.name == "q4_0.weight:packed")
ext = {e.key: e for e in q4.external_data}
size = int(ext["length"].value)
if kind == "chain":  # DequantizePacked -> Unsqueeze -> Identity, written last node first
    g.node.insert(0, helper.make_node("Identity", ["u"], ["q4_chain"], name="last"))
    g.node.insert(0, helper.make_node("Unsqueeze", ["q4_0.weight", "axes"], ["u"], name="middle"))
    g.initializer.append(helper.make_tensor("axes", onnx.TensorProto.INT64, [1], [0]))
    g.output.append(helper.make_tensor_value_info("q4_chain", onnx.TensorProto.FLOAT, [1, 3, 512]))
elif kind == "cycle":
    g.node.append(helper.make_node("Identity", ["b"], ["a"], name="first"))
    g.node.append(helper.make_node("Identity", ["a"], ["b"], name="second"))
    g.output.append(helper.make_tensor_value_info("b", onnx.TensorProto.FLOAT, None))
elif kind == "missing":
    g.node.append(helper.make_node("Identity", ["nowhere"], ["c"], name="lost"))
    g.output.append(helper.make_tensor_value_info("c", onnx.TensorProto.FLOAT, None))
elif kind == "absolute":
    ext["location"].value = __import__("os").path.abspath("m/zoo.gguf")
elif kind == "dotdot":
    ext["location"].value = "../m/zoo.gguf"
elif kind == "symlink":
    ext["location"].value = "out.gguf"
elif kind == "inside":
    ext["location"].value = "in.gguf"
elif kind == "past_end":
    ext["offset"].value = str(__import__("os").path.getsize("m/zoo.gguf") - size + 1)
elif kind == "overflow":
    ext["offset"].value = str(2**64 - 8)
elif kind == "long":
    ext["length"].value = str(size + 1)
elif kind == "directory":
    ext["location"].value = "adir"
elif kind == "fifo":
    ext["location"].value = "fifo"
else:
    raise SystemExit("unknown kind " + kind)
onnx.save(m, f"m/{out}.onnx")
PY
ln -s ../outside.gguf m/out.gguf
cp "$TESTDATA/zoo.gguf" outside.gguf
ln -s zoo.gguf m/in.gguf
mkdir m/adir
mkfifo m/fifo

for kind in chain cycle missing absolute dotdot symlink inside past_end overflow long directory fifo; do
  "$PYTHON" graph.py "$kind" "$kind"
done

# Several nodes, stored last first: run sorts them; Unsqueeze adds the leading axis.
check "a chain of three nodes runs" "$ONNXQ" run m/chain.onnx -o chain --output q4_chain --output q4_0.weight
check "chain: the output is the dequantized tensor with a new axis" "$PYTHON" -c '
import numpy as np
a, b = np.load("chain/q4_chain.npy"), np.load("chain/q4_0.weight.npy")
assert a.shape == (1, 3, 512) and a.tobytes() == b.tobytes()'
check "the symlink that stays inside is followed" "$ONNXQ" run m/inside.onnx -o inside --output q4_0.weight

expect_exit 2 "$ONNXQ" run m/cycle.onnx -o x
check "cycle: names the node" grep -q "node 'first' (Identity) is in a cycle" "$WORK/err"
expect_exit 2 "$ONNXQ" run m/missing.onnx -o x
check "missing input: names the node and the input" \
  grep -q "node 'lost' (Identity): input 0 'nowhere' is neither a graph input" "$WORK/err"

attack() {  # KIND MESSAGE
  expect_exit 2 timeout 20 "$ONNXQ" run "m/$1.onnx" -o "out-$1"
  check "$1: an invalid-input error naming the initializer" grep -q "initializer 'q4_0.weight:packed'.*$2" "$WORK/err"
  check "$1: one line" test "$(wc -l <"$WORK/err")" = 1
  check "$1: no output written" test ! -e "out-$1/q4_0.weight.npy"
}
attack absolute "is absolute"
attack dotdot "holds '..'"
attack symlink "leads out of the model's folder"
attack past_end "lies outside zoo.gguf"
attack overflow "lies outside zoo.gguf"
attack long "length 865 disagrees with its type and shape (864 bytes)"
attack directory "is not a regular file"
attack fifo "is not a regular file"
finish
