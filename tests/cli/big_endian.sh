#!/usr/bin/env bash
# Big-endian GGUF: testdata/zoo.gguf (every format) converted by an independent writer
# (gguf_tool.py big-endian: gguf_convert_endian.py's swaps, and onnxq's documented rule for the
# formats it refuses) must decode, summarize, export and diff exactly like the original.
source "$(dirname "$0")/common.bash"
TOOL="$(dirname "$0")/gguf_tool.py"
LE="$TESTDATA/zoo.gguf"

# The conversion really moved bytes in every tensor with multi-byte numbers (so equal decodes
# below are not the luck of symmetric bytes), and nowhere else.
check "converter: swapped tensors differ, mxfp4/nvfp4/i8 do not" "$PYTHON" - "$LE" "$TOOL" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gguf_tool", sys.argv[2])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
le = open(sys.argv[1], "rb").read()
be = tool.to_big_endian(le)
_, tensors, _ = tool.read_gguf(le)
data_start = len(le) - sum(len(t[4]) for t in tensors)
bad = []
for name, ne, t, off, raw in tensors:
    swapped = bool(tool.BLOCKS[t][2]) if t in tool.BLOCKS else tool.PLAIN[t] > 1
    moved = be[data_start + off:data_start + off + len(raw)] != raw
    if moved != swapped:
        bad.append(name.decode())
assert not bad, bad
PY

for magic in GGUF FUGG; do
  BE="$WORK/zoo-$magic.gguf"
  "$PYTHON" "$TOOL" big-endian "$LE" "$BE" "$magic"
  check "$magic: read as big-endian" grep -q '^byte order: *big-endian' <("$ONNXQ" info "$BE")
  check "$magic: metadata the same" diff <("$ONNXQ" meta --json "$LE") <("$ONNXQ" meta --json "$BE")
  check "$magic: tensor list the same" diff <("$ONNXQ" list --json "$LE") <("$ONNXQ" list --json "$BE")
  for dtype in f32 f64 f16 bf16; do
    mkdir -p "$WORK/le-$dtype" "$WORK/$magic-$dtype"
    "$ONNXQ" -q dequant "$LE" --all --dtype "$dtype" --out-dir "$WORK/le-$dtype"
    "$ONNXQ" -q dequant "$BE" --all --dtype "$dtype" --out-dir "$WORK/$magic-$dtype"
    check "$magic: all 38 tensors decoded ($dtype)" test "$(ls "$WORK/$magic-$dtype" | wc -l)" = 38
    for f in "$WORK/le-$dtype"/*.npy; do
      check "$magic: $(basename "$f") as $dtype bit-exact" cmp -s "$f" "$WORK/$magic-$dtype/$(basename "$f")"
    done
  done
  "$ONNXQ" -q dequant "$BE" --tensor q4_k.weight -o - >"$WORK/stdout.npy"
  check "$magic: dequant to standard output" cmp -s "$WORK/stdout.npy" "$WORK/le-f32/q4_k.weight.npy"
  check "$magic: stats the same" diff <("$ONNXQ" stats --all --json "$LE") <("$ONNXQ" stats --all --json "$BE")
  "$ONNXQ" -q export "$LE" --dtype f32 -o "$WORK/le.safetensors"
  "$ONNXQ" -q export "$BE" --dtype f32 -o "$WORK/$magic.safetensors"
  check "$magic: export the same" cmp -s "$WORK/le.safetensors" "$WORK/$magic.safetensors"
  "$ONNXQ" diff --json "$LE" "$BE" >"$WORK/diff.json"
  check "$magic: diff finds every tensor identical" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["tensors"] if isinstance(d, dict) else d
assert len(rows) == 38 and all(r["identical_bytes"] and r["differing"] == 0 for r in rows), d' "$WORK/diff.json"
done
finish
