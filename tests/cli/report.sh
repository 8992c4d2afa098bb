#!/usr/bin/env bash
# onnxq report as a user runs it: the page's data agrees with `onnxq list --json`, --values and
# --compare add their sections, a remote model sends only its header without them,
# errors exit with the documented codes naming the file, and an existing output stays intact until
# a complete page replaces it. (The page itself, in chromium: tests/browser/report_test.mjs.)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.bash"
zoo=$TESTDATA/zoo.gguf
cd "$WORK"
data() { "$PYTHON" -c '
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
print(json.dumps(json.loads(re.search(r"<script id=\"report-data\" type=\"application/json\">(.*?)</script>", text, re.S).group(1))))' "$1"; }

check "report: exit 0" expect_exit 0 "$ONNXQ" report "$zoo" -o zoo.html
data zoo.html >zoo.json
"$ONNXQ" list --json "$zoo" >list.json
check "report: every tensor, with list's type, shape and size" "$PYTHON" - <<'PY'
import json
page, listed = json.load(open("zoo.json")), json.load(open("list.json"))
rows = listed["tensors"] if isinstance(listed, dict) else listed
assert [(t["name"], t["type"], t["shape"], t["bytes"], t["elements"]) for t in page["tensors"]] == \
       [(t["name"], t["type"], t["shape"], t["bytes"], t["elements"]) for t in rows], "tensors differ"
assert page["values"] == [] and page["compare"] is None
PY
check "report: a page of modest size" test "$(stat -c %s zoo.html)" -lt 100000

# Without --values and --compare only the header is read: a model served by the loopback range
# server sends a small part of itself; with --values it sends the tensors chosen.
source "$here/serve.bash"
"$PYTHON" "$here/../browser/make_models.py" "$ONNXQ" models 4
mkdir -p models/hf/org/repo/main && cp models/model.gguf models/hf/org/repo/main/
start_server models
size=$(stat -c %s models/model.gguf)
"$ONNXQ" report "$URL/files/model.gguf" -o remote.html
header_bytes=$(sent /files/model.gguf)
check "remote: the header alone is fetched ($header_bytes of $size bytes)" test "$header_bytes" -gt 0 -a "$header_bytes" -lt $((size / 4))
"$ONNXQ" report "$URL/files/model.gguf" -o remote-values.html --values '*'
check "remote --values: the tensors are fetched too" test "$(($(sent /files/model.gguf) - header_bytes))" -ge $((size * 9 / 10))
check "remote: the page names the URL" grep -q "$URL/files/model.gguf" remote.html
HF_ENDPOINT=$URL "$ONNXQ" report hf://org/repo/model.gguf -o hf.html
data hf.html >hf.json
data remote.html >remote.json
check "hf://: the same tensors as over http" "$PYTHON" -c '
import json
a, b = json.load(open("hf.json")), json.load(open("remote.json"))
assert a["tensors"] == b["tensors"] and len(a["tensors"]) == 39 and a["overview"]["label"] == "hf://org/repo/model.gguf"'

"$ONNXQ" report "$zoo" -o v.html --values 'q8_0.weight' --compare "$zoo" --threads 2
data v.html >v.json
check "report --values --compare: the sections are there" "$PYTHON" - <<'PY'
import json
d = json.load(open("v.json"))
assert [v["name"] for v in d["values"]] == ["q8_0.weight"] and sum(d["values"][0]["histogram"]["counts"]) == 1536
assert d["compare"]["only_in_model"] == [] and all(t.get("nmse", 0) == 0 for t in d["compare"]["tensors"])
PY

# Errors: usage 1, a missing file 3, a broken file 2; the old output untouched, no temporary left.
echo old >keep.html
check "no -o: usage error" expect_exit 1 "$ONNXQ" report "$zoo"
check "missing model: exit 3" expect_exit 3 "$ONNXQ" report missing.gguf -o keep.html
check "missing model: the message names it" grep -q 'missing.gguf' "$WORK/err"
head -c 200 "$zoo" >short.gguf
check "truncated model: exit 2" expect_exit 2 "$ONNXQ" report short.gguf -o keep.html
check "truncated model: the message names it" grep -q 'short.gguf' "$WORK/err"
check "missing reference: exit 3" expect_exit 3 "$ONNXQ" report "$zoo" --compare nothere.gguf -o keep.html
cp "$zoo" z.gguf
check "output onto the input: refused" expect_exit 2 "$ONNXQ" report z.gguf -o z.gguf
check "output onto the input: the input intact" cmp -s z.gguf "$zoo"
check "negative threads: usage error" expect_exit 1 "$ONNXQ" report "$zoo" --threads -1 -o keep.html
check "the old output is intact" test "$(cat keep.html)" = old
check "no temporary left behind" test -z "$(ls -A | grep onnxq- || true)"
check "a directory as output: exit 3" expect_exit 3 "$ONNXQ" report "$zoo" -o "$WORK"
finish
