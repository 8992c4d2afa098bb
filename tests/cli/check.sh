# onnxq check: crafted files (check_files.py, an independent writer) give exactly the expected
# findings, severities and exit codes; text output is escaped; --strict; the fuzz corpus never crashes.
source "$(dirname "$0")/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
"$PYTHON" "$HERE/check_files.py" "$WORK/files"
cd "$WORK/files"

codes_of() {  # the distinct finding codes of `onnxq check --json FILE`, sorted, comma-separated
  "$ONNXQ" check --json "$1" 2>/dev/null | "$PYTHON" -c "
import json, sys
j = json.load(sys.stdin)
for f in j['findings']:
    assert f['severity'] in ('error', 'warning') and f['message'] and f['file'], f
    assert f['offset'] is None or isinstance(f['offset'], int), f
print(','.join(sorted({f['code'] for f in j['findings']})) or '-')
assert j['errors'] == sum(f['severity'] == 'error' for f in j['findings'])"
}
sorted_list() { tr , '\n' <<<"$1" | sort -u | paste -sd, -; }

while read -r file code want; do
  check "$file: findings [$want]" test "$(codes_of "$file")" = "$(sorted_list "$want")"
  check "$file: exit $code" expect_exit "$code" "$ONNXQ" check "$file"
  if [ "$code" = 0 ] && [ "$want" != - ]; then
    check "$file: --strict fails on warnings" expect_exit 4 "$ONNXQ" check --strict "$file"
  fi
done <expected.txt
check "clean file: --strict passes" expect_exit 0 "$ONNXQ" check --strict clean.gguf
check "clean file: no finding line" test "$(cat "$WORK/out")" = "clean.gguf: 0 errors, 0 warnings"
# Severities: warnings are warnings, errors errors (e_several mixes both).
check "e_several: 3 errors (duplicate key, non-ASCII key, gap), 4 warnings" test "$("$ONNXQ" check --json e_several.gguf 2>/dev/null |
  "$PYTHON" -c "import json,sys; j=json.load(sys.stdin); print(j['errors'], j['warnings'])")" = "3 4"
check "two independent defects: two findings" test "$("$ONNXQ" check --json e_two_defects.gguf 2>/dev/null |
  "$PYTHON" -c "import json,sys; print(len(json.load(sys.stdin)['findings']))")" = 2
# Text output: every string escaped, offsets and records named.
"$ONNXQ" check w_control_key.gguf >text.txt
check "no raw ESC byte in the output" test "$(tr -dc '\033' <text.txt | wc -c)" -eq 0
check "the key shown escaped, with its offset" grep -qF "warning [control-chars] at offset 24, key 'evil\\x1b[2Jkey'" text.txt
"$ONNXQ" check w_control_value.gguf >text2.txt
check "C1 control in a value: no raw byte" test "$(tr -dc '\302\233' <text2.txt | wc -c)" -eq 0
"$ONNXQ" check e_gap.gguf >gap.txt 2>/dev/null || true
check "a gap names the tensor" grep -q "error \[data-gap\] at offset [0-9]*, tensor 'b': 32 unused bytes" gap.txt
check "the JSON names the tensor" test "$("$ONNXQ" check --json e_gap.gguf 2>/dev/null | "$PYTHON" -c "
import json,sys; print(json.load(sys.stdin)['findings'][0]['tensor'])")" = b
check "the reader still reads the gapped file" expect_exit 0 "$ONNXQ" list e_gap.gguf
check "missing file: exit 3" expect_exit 3 "$ONNXQ" check nothing.gguf
# A split model: every shard is walked; a missing shard is an error.
mv split-00002-of-00002.gguf away.gguf
check "missing shard: exit 4" expect_exit 4 "$ONNXQ" check split-00001-of-00002.gguf
check "missing shard: named" grep -q "split-missing-shard" "$WORK/out"
# The fuzz corpus and regression inputs: findings, never a crash.
for f in "$HERE"/../fuzz/corpus/gguf/* "$HERE"/../regression/gguf/*; do
  [ -f "$f" ] || continue
  got=0
  "$ONNXQ" check "$f" >/dev/null 2>&1 || got=$?
  check "corpus $(basename "$f"): exit 0 or 4 (got $got)" test "$got" -eq 0 -o "$got" -eq 4
done
finish
