#!/usr/bin/env bash
# onnxq convert-endian: the zoo model (a tensor of every block format and plain type) to big-endian
# equals, byte for byte, what an independent converter (gguf_tool.py: gguf_convert_endian.py's
# swaps, extended by the field kinds) writes; back to little-endian it is the original; the
# big-endian file decodes to the same values; --in-place and the refusals.
source "$(dirname "$0")/common.bash"
TOOL="$(dirname "$0")/gguf_tool.py"
CMP="$(dirname "$0")/gguf_compare.py"
ZOO="$TESTDATA/zoo.gguf"
cd "$WORK"

"$ONNXQ" convert-endian "$ZOO" -o be.gguf --to big
"$PYTHON" "$TOOL" big-endian "$ZOO" be-independent.gguf GGUF
check "to big: equal to the independent converter's file" cmp be.gguf be-independent.gguf
check "to big: read as big-endian" grep -q '^byte order: *big-endian' <("$ONNXQ" info be.gguf)
"$ONNXQ" convert-endian be.gguf -o le.gguf --to little
check "back to little: byte-identical to the original" cmp le.gguf "$ZOO"
"$ONNXQ" convert-endian "$ZOO" -o native.gguf --to native
check "native on this (little-endian) machine: a copy" cmp native.gguf "$ZOO"
"$ONNXQ" convert-endian be-independent.gguf -o le2.gguf --to little
check "the independent big-endian file converted back: the original" cmp le2.gguf "$ZOO"

mkdir le-f32 be-f32
"$ONNXQ" -q dequant "$ZOO" --all --dtype f32 --out-dir le-f32
"$ONNXQ" -q dequant be.gguf --all --dtype f32 --out-dir be-f32
check "all 38 tensors decoded" test "$(ls be-f32 | wc -l)" = 38
for f in le-f32/*.npy; do
  check "$(basename "$f") decodes bit-exact from the big-endian file" cmp -s "$f" "be-f32/$(basename "$f")"
done

"$ONNXQ" check --json "$ZOO" >before.json || true
"$ONNXQ" check --json be.gguf >after.json || true
check "check: nothing new but the big-endian warning" "$PYTHON" - before.json after.json <<'PY'
import json, sys
before = {(f["severity"], f["code"]) for f in json.load(open(sys.argv[1]))["findings"]}
after = {(f["severity"], f["code"]) for f in json.load(open(sys.argv[2]))["findings"]}
new = after - before
assert all(s == "warning" and "endian" in c for s, c in new) and len(new) <= 1, new
PY

cp be.gguf inplace.gguf
"$ONNXQ" convert-endian inplace.gguf --in-place --to little
check "in place: the original" cmp inplace.gguf "$ZOO"
check "in place: no temporary left" test "$(ls -A | grep -c onnxq)" = 0

check "--to required" expect_exit 1 "$ONNXQ" convert-endian "$ZOO" -o x.gguf
check "--to checked" expect_exit 1 "$ONNXQ" convert-endian "$ZOO" -o x.gguf --to middle
check "output onto the input" expect_exit 2 "$ONNXQ" convert-endian "$ZOO" -o "$ZOO" --to big
check "nothing written by refusals" test ! -e x.gguf
finish
