# onnxq hash: the llama-gguf-hash manifest format byte for byte, values from an independent
# computation (hash_expect.py: its own GGUF reader, hashlib, python3-xxhash), --check.
source "$(dirname "$0")/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
expect() { "$PYTHON" "$HERE/hash_expect.py" "$@"; }
cd "$WORK"
cp "$TESTDATA/zoo.gguf" zoo.gguf
# Big-endian, v2 and a file with padding between tensors (odd sizes) beside the zoo.
cp "$HERE/../fuzz/corpus/gguf/layout_be_v3.gguf" be.gguf
"$PYTHON" -c "
import struct, sys
sys.path.insert(0, '$HERE')
import gguf_tool
f32 = lambda *v: struct.pack('<%df' % len(v), *v)
gguf_tool.write_gguf('padded.gguf', [(b'general.architecture', 8, struct.pack('<Q', 4) + b'test')],
    [[b'three', (3,), 0, 0, f32(1, 2, 3)], [b'five', (5,), 0, 0, f32(4, 5, 6, 7, 8)], [b'one', (1,), 0, 0, f32(9)]], 32)
gguf_tool.write_gguf('edited.gguf', [(b'general.architecture', 8, struct.pack('<Q', 5) + b'other')],
    [[b'three', (3,), 0, 0, f32(1, 2, 3)], [b'five', (5,), 0, 0, f32(4, 5, 6, 7, 8)], [b'one', (1,), 0, 0, f32(9)]], 32)
"

for f in zoo.gguf be.gguf padded.gguf; do
  expect "$f" "$f" xxh64 >"$f.want1"
  "$ONNXQ" hash "$f" >"$f.got1"
  check "$f: default xxh64 manifest equals the independent one" cmp -s "$f.want1" "$f.got1"
  expect "$f" "$f" xxh64,xxh3,sha1,sha256,uuid >"$f.want2"
  "$ONNXQ" hash "$f" --all --uuid >"$f.got2"
  check "$f: --all --uuid equals the independent one" cmp -s "$f.want2" "$f.got2"
  "$ONNXQ" hash "$f" --sha1 --uuid --threads 1 >"$f.got3"
  check "$f: --threads 1 gives the same lines" cmp -s <(grep -E '^(sha1|uuid) ' "$f.want2") "$f.got3"
done
# FILE is printed as given; every type of a tensor together, tensors in file order, then the model.
"$ONNXQ" hash ./zoo.gguf --sha256 --xxh3 >order.txt
check "FILE as given, types per tensor in llama-gguf-hash's order" \
  cmp -s order.txt <(expect zoo.gguf ./zoo.gguf xxh3,sha256)
check "first lines: xxh3 then sha256 of the first tensor" \
  test "$(head -2 order.txt | cut -c1-8 | tr -d ' ' | tr '\n' ,)" = "xxh3,sha256,"
check "line format: %-8s, two spaces, hash, two spaces, name" \
  grep -qE '^xxh3      [0-9a-f]{16}  \./zoo\.gguf:q4_0\.weight$' order.txt
"$ONNXQ" hash zoo.gguf --all --no-layer >nolayer.txt
check "--no-layer: only the four model lines" cmp -s nolayer.txt <(expect zoo.gguf zoo.gguf xxh64,xxh3,sha1,sha256 --no-layer)
check "--no-layer has 4 lines" test "$(wc -l <nolayer.txt)" -eq 4
# Metadata edits change no hash (padding between tensors is not hashed either).
"$ONNXQ" hash padded.gguf --all --no-layer >a.txt
"$ONNXQ" hash edited.gguf --all --no-layer | sed 's/edited.gguf/padded.gguf/' >b.txt
check "a metadata edit changes no model hash" cmp -s a.txt b.txt

# --json: the same values.
"$ONNXQ" hash zoo.gguf --sha256 --json >h.json
check "--json holds the same hashes" "$PYTHON" -c "
import json, sys
j = json.load(open('h.json'))
want = [l.split() for l in open('zoo.gguf.want2') if l.startswith('sha256')]
got = [[h['type'], h['hash'], h['name']] for h in j['hashes']]
assert got == want, (got[:2], want[:2])
assert j['hashes'][0]['tensor'] == 'q4_0.weight' and j['hashes'][-1]['tensor'] is None
"

# --check: a round trip passes and picks the strongest type present.
"$ONNXQ" hash zoo.gguf --all --uuid >manifest.txt
check "round trip: check passes" expect_exit 0 "$ONNXQ" hash zoo.gguf --check manifest.txt
check "round trip: sha256 chosen, every line Ok" \
  test "$(grep -c '  -  Ok$' "$WORK/out")" -eq "$(grep -c '^sha256' manifest.txt)"
check "round trip: no other type checked" test "$(grep -vc '^sha256\|^$\|manifest.txt:' "$WORK/out")" -eq 0
check "check line format" grep -qE '^sha256    [0-9a-f]{64}  zoo\.gguf:q4_0\.weight  -  Ok$' "$WORK/out"
check "uuid is checked under its own type" expect_exit 0 "$ONNXQ" hash zoo.gguf --uuid --check manifest.txt
check "uuid line Ok" grep -qE '^uuid      [0-9a-f-]{36}  zoo\.gguf  -  Ok$' "$WORK/out"
# A manifest written by the independent code (llama-gguf-hash's format) is read.
expect zoo.gguf zoo.gguf xxh64,xxh3 >llama.txt
check "an independent manifest verifies (xxh64 chosen over xxh3)" expect_exit 0 "$ONNXQ" hash zoo.gguf -c llama.txt
check "xxh64 lines checked" test "$(grep -c '^xxh64 .*  -  Ok$' "$WORK/out")" -eq "$(grep -c '^xxh64' llama.txt)"
# Tampered manifest: one tensor's hash changed -> exit 4 (differences), the line and the message name it.
awk '/zoo.gguf:q8_0.weight$/ && /^sha256/ { $2 = "00" substr($2, 3); printf "%-8s  %s  %s\n", $1, $2, $3; next } { print }' \
  manifest.txt >tampered.txt
check "tampered manifest differs" test "$(cmp manifest.txt tampered.txt 2>&1 | wc -l)" -eq 1
check "tampered manifest fails" expect_exit 4 "$ONNXQ" hash zoo.gguf --check tampered.txt
check "the mismatching line says Mismatch" grep -q 'zoo.gguf:q8_0.weight  -  Mismatch$' "$WORK/out"
check "the error names the tensor" grep -q "sha256 of tensor 'q8_0.weight'" "$WORK/err"
# Tampered data: one byte of a tensor flipped in a copy.
cp zoo.gguf flipped.gguf
off=$("$ONNXQ" list zoo.gguf --json | "$PYTHON" -c "import json,sys; print([t for t in json.load(sys.stdin) if t['name']=='q4_1.weight'][0]['file_offset'])")
printf '\xff' | dd of=flipped.gguf bs=1 seek=$((off + 5)) conv=notrunc status=none
sed 's/^\(\S*  *\S*  *\)zoo.gguf/\1flipped.gguf/' manifest.txt >flipped.txt
check "flipped tensor byte fails" expect_exit 4 "$ONNXQ" hash flipped.gguf --check flipped.txt
check "it names the tensor" grep -q "tensor 'q4_1.weight'" "$WORK/err"
check "and the model line mismatches" grep -qE '^sha256 .*  flipped\.gguf  -  Mismatch$' "$WORK/out"
# No entry for this file (another FILE), no known type, no manifest.
check "no matching entry: exit 4" expect_exit 4 "$ONNXQ" hash ./zoo.gguf --check manifest.txt
check "no matching entry: says so" grep -q "no entry of manifest.txt" "$WORK/err"
check "lines are Not Found" grep -q '  -  Not Found$' "$WORK/out"
printf 'md5  abc  zoo.gguf\n' >unknown.txt
check "manifest without a known type: exit 2" expect_exit 2 "$ONNXQ" hash zoo.gguf --check unknown.txt
check "missing manifest: exit 3" expect_exit 3 "$ONNXQ" hash zoo.gguf --check nothing.txt

# A split model is hashed whole: the same tensor and model hashes as the single file.
"$PYTHON" "$HERE/gguf_tool.py" split zoo.gguf part 3
"$ONNXQ" hash part-00001-of-00003.gguf --sha256 | sed 's/part-00001-of-00003.gguf/zoo.gguf/' >split.txt
check "split model: same hashes as the whole file" cmp -s split.txt <(grep '^sha256' zoo.gguf.want2)
finish
