#!/usr/bin/env bash
# onnxq export -o model.onnx: the graph over the .gguf's own bytes. Python's onnx package loads
# each exported model with its external data, and the bytes it reads are the GGUF's (read by
# gguf_tool.py); `onnxq run` of the graph equals `onnxq dequant` bit for bit, for the zoo model
# in every dtype, a split model, and data sections at aligned and unaligned offsets. Errors: a
# name of another extension, a .gguf outside the .onnx's folder, big-endian and remote models.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
TOOL="$(cd "$(dirname "$0")" && pwd)/gguf_tool.py"
cd "$WORK"
cp "$TESTDATA/zoo.gguf" zoo.gguf

# The unaligned copy: general.alignment 1 and a key padding the header to an odd length, so the
# data section and every tensor start at odd offsets.
"$PYTHON" - "$TOOL" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("gguf_tool", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
kvs, tensors, _ = tool.read_gguf(open("zoo.gguf", "rb").read())
kvs = [kv for kv in kvs if kv[0] != b"general.alignment"] + [(b"general.alignment", 4, struct.pack("<I", 1))]
for pad in (b"x", b"xx"):
    tool.write_gguf("odd.gguf", kvs + [(b"test.pad", 8, struct.pack("<Q", len(pad)) + pad)], tensors, 1)
    data = open("odd.gguf", "rb").read()
    if (len(data) - sum(len(t[4]) for t in tensors)) % 2:
        break
else:
    raise SystemExit("no odd data offset")
PY
mkdir split
"$PYTHON" "$TOOL" split zoo.gguf split/zoo 3

# reads EXPORTED.onnx GGUF...: every initializer, loaded by onnx with its external data, is the
# bytes of the GGUF tensor it names (up to the padding before the next tensor), and every output
# is declared with the tensor's shape.
cat >onnx_bytes.py <<'PY'
import importlib.util, sys
import onnx
spec = importlib.util.spec_from_file_location("gguf_tool", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
model = onnx.load(sys.argv[2])  # external data loaded, resolved against the model's folder
raw = {}
for path in sys.argv[3:]:
    _, tensors, alignment = tool.read_gguf(open(path, "rb").read())
    for name, ne, _, _, data in tensors:
        raw[name.decode()] = (data, alignment, list(reversed(ne)))
assert len(model.graph.initializer) == len(raw), (len(model.graph.initializer), len(raw))
for init in model.graph.initializer:
    name = init.name.rsplit(":", 1)[0]
    data, alignment, shape = raw[name]
    got = init.raw_data  # the loaded external bytes, as stored (numpy_helper widens BFLOAT16)
    assert got and data[:len(got)] == got, name
    assert len(data) - len(got) < 32, (name, len(data), len(got))  # zoo.gguf's padding at most
for out in model.graph.output:
    dims = [d.dim_value for d in out.type.tensor_type.shape.dim]
    assert dims == raw[out.name][2], (out.name, dims)
props = {p.key: p.value for p in model.metadata_props}
assert props["general.name"].startswith("onnxq test zoo"), props
assert "onnxq.gguf" in props, props
print(len(model.graph.initializer))
PY

# same DIR1 DIR2: the same .npy files, equal in dtype, shape and bytes.
cat >same.py <<'PY'
import os, sys
import numpy as np
a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(a))
assert names == sorted(os.listdir(b)) and names, (names, sorted(os.listdir(b)))
for n in names:
    x, y = np.load(os.path.join(a, n)), np.load(os.path.join(b, n))
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), n
print(len(names))
PY

# reference MODEL DIR [DTYPE]: `onnxq dequant` of every tensor in the dtype the export gives it:
# DTYPE for floats (default: f32 for blocks, a plain tensor's own type), integers their own.
reference() {
  local model=$1 dir=$2 dtype=${3:-}
  "$ONNXQ" dequant "$model" --all --dtype "${dtype:-f32}" --out-dir "$dir" >/dev/null
  "$ONNXQ" dequant "$model" --filter 'i[0-9]*.weight' --out-dir "$dir" >/dev/null
  if [ -z "$dtype" ]; then
    "$ONNXQ" dequant "$model" --tensor f16.weight --tensor cube_3d.f16 --dtype f16 --out-dir "$dir" >/dev/null
    "$ONNXQ" dequant "$model" --tensor bf16.weight --dtype bf16 --out-dir "$dir" >/dev/null
    "$ONNXQ" dequant "$model" --tensor f64.weight --dtype f64 --out-dir "$dir" >/dev/null
  fi
}

check "export zoo, default dtypes" "$ONNXQ" export zoo.gguf -o zoo.onnx
"$ONNXQ" run zoo.onnx -o run-default >/dev/null
reference zoo.gguf deq-default
check "run = dequant, default dtypes, all 38 tensors" test "$("$PYTHON" same.py run-default deq-default)" = 38
check "onnx.load reads the GGUF's bytes" test "$("$PYTHON" onnx_bytes.py "$TOOL" zoo.onnx zoo.gguf)" = 38
for dtype in f32 f16 bf16; do
  check "export zoo --dtype $dtype" "$ONNXQ" export zoo.gguf -o "zoo-$dtype.onnx" --dtype "$dtype"
  check "export zoo --dtype $dtype: a few KB" test "$(stat -c %s "zoo-$dtype.onnx")" -lt 32768
  check "run zoo-$dtype.onnx needs no -i" "$ONNXQ" run "zoo-$dtype.onnx" -o "run-$dtype" >/dev/null
  reference zoo.gguf "deq-$dtype" "$dtype"
  check "run = dequant, $dtype, all 38 tensors" test "$("$PYTHON" same.py "run-$dtype" "deq-$dtype")" = 38
  # --pb computes each output whole (the kernels, not the stream): the same values.
  "$ONNXQ" run "zoo-$dtype.onnx" --pb -o "pb-$dtype" >/dev/null
  check "run --pb = dequant, $dtype" "$PYTHON" -c '
import os, sys
import numpy as np
import onnx
a, b = sys.argv[1:3]
names = sorted(os.listdir(b))
assert len(names) == 38
for n in names:
    t = onnx.TensorProto()
    t.ParseFromString(open(os.path.join(a, n[:-4] + ".pb"), "rb").read())
    want = np.load(os.path.join(b, n))
    assert t.raw_data == want.tobytes() and list(t.dims) == list(want.shape), n' "pb-$dtype" "deq-$dtype"
  check "onnx.load reads the GGUF's bytes ($dtype)" test "$("$PYTHON" onnx_bytes.py "$TOOL" "zoo-$dtype.onnx" zoo.gguf)" = 38
done

check "export the unaligned model" "$ONNXQ" export odd.gguf -o odd.onnx
check "unaligned: offsets really are odd" "$PYTHON" -c '
import onnx, sys
m = onnx.load("odd.onnx", load_external_data=False)
offs = [int(dict((e.key, e.value) for e in t.external_data)["offset"]) for t in m.graph.initializer]
assert any(o % 2 for o in offs), offs'
"$ONNXQ" run odd.onnx -o run-odd >/dev/null
reference odd.gguf deq-odd
check "unaligned: run = dequant" test "$("$PYTHON" same.py run-odd deq-odd)" = 38
check "unaligned: onnx.load reads the GGUF's bytes" test "$("$PYTHON" onnx_bytes.py "$TOOL" odd.onnx odd.gguf)" = 38

check "export a split model from its second shard" "$ONNXQ" export split/zoo-00002-of-00003.gguf -o split.onnx
check "split: initializers point into all three shards" test "$("$PYTHON" -c '
import onnx
m = onnx.load("split.onnx", load_external_data=False)
print(len({dict((e.key, e.value) for e in t.external_data)["location"] for t in m.graph.initializer}))')" = 3
"$ONNXQ" run split.onnx -o run-split >/dev/null
check "split: run = dequant of the unsplit model" test "$("$PYTHON" same.py run-split deq-default)" = 38
check "split: onnx.load reads the shards' bytes" \
  test "$("$PYTHON" onnx_bytes.py "$TOOL" split.onnx split/zoo-0000{1,2,3}-of-00003.gguf)" = 38

# --tensor and --filter choose, --output writes only what is asked.
check "export --filter" "$ONNXQ" export zoo.gguf -o some.onnx --filter 'q4_*' --tensor f16.weight
"$ONNXQ" run some.onnx -o run-some --output q4_k.weight --output f16.weight >/dev/null
check "run --output: only those" test "$(ls run-some | tr '\n' ' ')" = "f16.weight.npy q4_k.weight.npy "
expect_exit 1 "$ONNXQ" run some.onnx -o x --output q8_0.weight
check "run --output: an unknown output is a usage error" grep -q "no output 'q8_0.weight'" "$WORK/err"

# Memory: a 68 MiB Q8_0 tensor (a sparse file) runs to a 128 MiB f16 .npy streamed a chunk at a
# time, as dequant does; holding the tensor whole would take its packed bytes and its output.
"$PYTHON" - <<'PY'
import struct
def s(x):
    return struct.pack("<Q", len(x)) + x
ne = (32768, 2048)
head = b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + s(b"big.weight") + struct.pack("<IQQIQ", 2, *ne, 8, 0)
head += b"\0" * (-len(head) % 32)
with open("big.gguf", "wb") as f:
    f.write(head)
    f.truncate(len(head) + ne[0] * ne[1] // 32 * 34)
PY
"$ONNXQ" export big.gguf -o big.onnx --dtype f16
# The peak RSS against that of a tiny run (the program itself; a sanitizer build's runtime too).
small=$(/usr/bin/time -f %M "$ONNXQ" run zoo-f16.onnx --output q4_0.weight -o run-tiny 2>&1 >/dev/null)
big=$(/usr/bin/time -f %M "$ONNXQ" run big.onnx -o run-big 2>&1 >/dev/null)
echo "peak RSS: tiny run ${small} KiB, run of a 68 MiB Q8_0 tensor to 128 MiB ${big} KiB"
check "a large output streams: less than 32 MiB more resident than a tiny run" test $((big - small)) -lt $((32 << 10))
check "... and its output is complete" test "$(stat -c %s run-big/big.weight.npy)" -eq $((128 + 32768 * 2048 * 2))

# Errors: the extension, the folder, big-endian and remote models.
expect_exit 1 "$ONNXQ" export zoo.gguf -o zoo.bin
check "another extension is a usage error" grep -q 'must end in .safetensors or .onnx' "$WORK/err"
check "... and writes nothing" test ! -e zoo.bin
expect_exit 1 "$ONNXQ" export zoo.gguf -o sharded.onnx --max-shard-size 1KB
mkdir -p below
expect_exit 2 "$ONNXQ" export zoo.gguf -o below/zoo.onnx
check "a .gguf outside the .onnx's folder is refused" grep -q "is not inside .*below, the folder of the .onnx" "$WORK/err"
check "... and nothing is written" test ! -e below/zoo.onnx
"$PYTHON" "$TOOL" big-endian zoo.gguf be.gguf
expect_exit 2 "$ONNXQ" export be.gguf -o be.onnx
check "big-endian: names onnxq convert-endian" grep -q 'big-endian.*onnxq convert-endian' "$WORK/err"
mkdir served && cp zoo.gguf served/
start_server "$WORK/served"
expect_exit 2 "$ONNXQ" export "$URL/files/zoo.gguf" -o remote.onnx
check "remote: refused" grep -q 'a remote model cannot be exported to ONNX' "$WORK/err"
check "... and nothing is written" test ! -e remote.onnx
finish
