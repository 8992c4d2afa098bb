#!/usr/bin/env bash
# Shards seen one at a time: meta shows the named file's own key-value pairs, info labels its
# whole-model view and lists each shard's own data offset and key count, and a shard whose
# siblings are missing (or renamed) can still be inspected and decoded.
source "$(dirname "$0")/common.bash"
TOOL="$(cd "$(dirname "$0")" && pwd)/gguf_tool.py"
cd "$WORK"
"$PYTHON" "$TOOL" split "$TESTDATA/zoo.gguf" m 3

# Each shard's own facts, read by the independent reader: keys, data offset, tensor names.
"$PYTHON" - "$TOOL" >facts.json <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("gguf_tool", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
facts = []
for i in range(1, 4):
    data = open(f"m-{i:05d}-of-00003.gguf", "rb").read()
    kvs, tensors, _ = tool.read_gguf(data)
    facts.append({"keys": [k.decode() for k, _, _ in kvs], "tensors": [t[0].decode() for t in tensors],
                  "data_offset": len(data) - sum(len(t[4]) for t in tensors)})
print(json.dumps(facts))
PY
fact() { "$PYTHON" -c "import json,sys; f=json.load(open('facts.json')); print($1)"; }

for i in 1 2 3; do
  f=m-0000$i-of-00003.gguf
  check "meta $i: split.no is the file's own" test "$("$ONNXQ" meta "$f" -k split.no)" = $((i - 1))
  check "meta $i: the file's own keys" test "$("$ONNXQ" meta --json "$f" | "$PYTHON" -c 'import json,sys; print([e["key"] for e in json.load(sys.stdin)])')" = "$(fact "f[$i-1]['keys']")"
done

"$ONNXQ" info m-00002-of-00003.gguf >info.txt
check "info: labelled as the whole model" grep -q '^model: *shard 2 of 3; sizes and counts below are for the whole model$' info.txt
check "info: whole-model tensor count" grep -q '^tensors: *38$' info.txt
check "info: no top-level data offset for a split model" bash -c '! grep -q "^data offset:" info.txt'
for i in 1 2 3; do
  check "info: shard $i row has its own data offset and key count" \
    grep -qE "^ +$i +m-0000$i-of-00003.gguf +$(fact "f[$i-1]['data_offset']") +$(fact "len(f[$i-1]['keys'])") +$(fact "len(f[$i-1]['tensors'])") " info.txt
done
"$ONNXQ" info --json m-00002-of-00003.gguf >info.json
check "info --json: scope, own data offset and key count of each shard" "$PYTHON" -c '
import json
d = json.load(open("info.json")); f = json.load(open("facts.json"))
assert d["scope"] == "model" and d["n_tensors"] == 38, d
assert d["data_offset"] == f[1]["data_offset"] and d["n_kv"] == len(f[1]["keys"]), d
assert [s["shard"] for s in d["shards"]] == [1, 2, 3], d["shards"]
for s, want in zip(d["shards"], f):
    assert s["present"] and s["data_offset"] == want["data_offset"] and s["n_kv"] == len(want["keys"]), s'

# Shard 1 goes missing: shard 2 stays inspectable.
mkdir full && cp m-0000*-of-00003.gguf full/
rm m-00001-of-00003.gguf
one_warning() { test "$(grep -c . "$WORK/err")" = 1 && grep -q '^onnxq: warning: m-00002-of-00003.gguf: 1 of the model.s 3 shards are missing: 1 (m-00001-of-00003.gguf)' "$WORK/err"; }
check "partial: meta fully, no warning" expect_exit 0 "$ONNXQ" meta m-00002-of-00003.gguf
check "partial: meta prints every key" test "$(tail -n +2 "$WORK/out" | wc -l)" = "$(fact "len(f[1]['keys'])")"
check "partial: meta stderr empty" test ! -s "$WORK/err"
check "partial: list works" expect_exit 0 "$ONNXQ" list --json m-00002-of-00003.gguf
check "partial: list warns in one line" one_warning
check "partial: list has the present shards' tensors" test "$("$PYTHON" -c 'import json,sys; print([t["name"] for t in json.load(open(sys.argv[1]))])' "$WORK/out")" = "$(fact "f[1]['tensors'] + f[2]['tensors']")"
check "partial: list --json shard numbers" test "$("$PYTHON" -c 'import json,sys; print(sorted({t["shard"] for t in json.load(open(sys.argv[1]))}))' "$WORK/out")" = "[1, 2]"
check "partial: info works" expect_exit 0 "$ONNXQ" info m-00002-of-00003.gguf
check "partial: info warns in one line" one_warning
check "partial: info labels the shards present" grep -q '^model: *shard 2 of 3; sizes and counts below are for the shards present$' "$WORK/out"
check "partial: info lists shard 1 as missing" grep -qE '^ +1 +m-00001-of-00003.gguf +missing' "$WORK/out"
check "partial: info --json marks shard 1 absent" "$PYTHON" -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "info", "--json", "m-00002-of-00003.gguf"], capture_output=True, check=True).stdout)
assert d["scope"] == "shards present" and [s["present"] for s in d["shards"]] == [False, True, True], d' "$ONNXQ"
own=$(fact "f[1]['tensors'][0]")
other=$(fact "f[0]['tensors'][0]")
check "partial: dequant of its own tensor" expect_exit 0 "$ONNXQ" dequant m-00002-of-00003.gguf --tensor "$own" -o own.npy
"$ONNXQ" dequant "$TESTDATA/zoo.gguf" --tensor "$own" -o want.npy
check "partial: own tensor decodes as in the whole file" cmp own.npy want.npy
check "partial: a tensor of the missing shard is exit 3" expect_exit 3 "$ONNXQ" dequant m-00002-of-00003.gguf --tensor "$other" -o x.npy
check "partial: the error names the missing shard" grep -q "no tensor named '$other' in the shards present; it may be in a missing shard: 1 (m-00001-of-00003.gguf)" "$WORK/err"
check "partial: no output file left" test ! -e x.npy
check "partial: export still needs every shard (exit 3)" expect_exit 3 "$ONNXQ" export m-00002-of-00003.gguf -o x.safetensors
check "partial: export names the missing shard" grep -q 'missing shard 1 of 3' "$WORK/err"

# A renamed shard: its siblings cannot be found by name.
cp full/m-00003-of-00003.gguf renamed.gguf
check "renamed: meta shows its own keys" test "$("$ONNXQ" meta renamed.gguf -k split.no)" = 2
check "renamed: list works" expect_exit 0 "$ONNXQ" list renamed.gguf
check "renamed: list names the unknown shards" grep -q 'warning: renamed.gguf: 2 of the model.s 3 shards are missing: 1 (file name unknown' "$WORK/err"
check "renamed: list shows shard 3's tensors in the shard column" grep -qE "^$(fact "f[2]['tensors'][0]") .* 3$" "$WORK/out"
check "renamed: stats still refuses (exit 2)" expect_exit 2 "$ONNXQ" stats renamed.gguf
finish
