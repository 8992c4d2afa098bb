#!/usr/bin/env bash
# Issue 33: a tensor of a ggml type onnxq does not know (142) stays inspectable: info, list, meta,
# tokens, estimate, hash and diff work, and dequant, export and stats of the other tensors; decoding it
# is an error naming its type, and --all / export fail before writing anything unless --skip-unknown.
# Between two known tensors and as the last one, little- and big-endian, local and remote. Its size is
# what the layout leaves it, checked against gguf_tool.read_gguf. A fork's Q2_0 layout is named; a
# Q2_0 tensor that fits no layout keeps the plain error.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
here=$(cd "$(dirname "$0")" && pwd)
mkdir "$WORK/root"
PYTHONPATH=$here "$PYTHON" "$here/unknown_type_files.py" "$WORK/root"
start_server "$WORK/root"
cd "$WORK"
U=blk.0.ffn_down.weight

# py CODE ARGS...: CODE runs with E (expect.json), N (the file's name there), OUT (the file `out`'s text)
# and ERR (`err`'s).
py() {
  local code=$1
  shift
  "$PYTHON" -c "
import json, sys
import numpy as np
E = json.load(open('root/expect.json'))
N = sys.argv[1]
U = '$U'
OUT = open('out').read()
ERR = open('err').read()
$code" "$@"
}
run() { "$@" >out 2>err || true; }

for name in mid last mid-be last-be; do
  for where in local remote; do
    if [ "$where" = local ]; then f=root/$name.gguf; else f=$URL/files/$name.gguf; fi
    tag="$name, $where"

    run "$ONNXQ" info "$f"
    check "$tag: info lists type 142" py 'assert any(l.split()[:3] == ["type", "142", "1"] for l in OUT.splitlines()), OUT' "$name"
    run "$ONNXQ" info --json "$f"
    check "$tag: info --json: type 142, no format, its inferred bytes" py '
row = [r for r in json.loads(OUT)["types"] if r["ggml_type"] == 142]
assert row == [{"type": "type 142", "ggml_type": 142, "format_id": None, "tensors": 1, "elements": 128,
                "bytes": E[N][U]["bytes"]}], row' "$name"
    check "$tag: info --markdown" bash -c "'$ONNXQ' info --markdown '$f' | grep -q '| type 142 |'"

    run "$ONNXQ" list "$f"
    check "$tag: list: type 142, format -, inferred bytes" py '
row = [l.split() for l in OUT.splitlines() if l.startswith(U)]
assert row and row[0][1:4] == ["type", "142", "-"] and row[0][-2] == str(E[N][U]["bytes"]), row' "$name"
    run "$ONNXQ" list --json "$f"
    check "$tag: list --json: the unknown tensor's facts" py '
rows = {r["name"]: r for r in json.loads(OUT)}
r = rows[U]
assert (r["type"], r["ggml_type"], r["format_id"], r["size_inferred"]) == ("type 142", 142, None, True), r
assert (r["bytes"], r["offset_in_data"], r["shape"]) == (E[N][U]["bytes"], E[N][U]["offset"], [128]), r
assert all(not x["size_inferred"] and x["bytes"] <= E[N][x["name"]]["bytes"] for x in rows.values() if x["name"] != U)' "$name"
    check "$tag: list --markdown" bash -c "'$ONNXQ' list --markdown '$f' | grep -q '| type 142 |'"

    run "$ONNXQ" meta --json "$f"
    check "$tag: meta" py 'assert {e["key"]: e["value"] for e in json.loads(OUT)}["general.architecture"] == "llama"' "$name"
    run "$ONNXQ" tokens --json "$f"
    check "$tag: tokens" py 'assert len(json.loads(OUT)) == 40, OUT[:200]' "$name"

    run "$ONNXQ" estimate --json "$f"
    check "$tag: estimate --json: a note and a warning" py '
notes = json.loads(OUT)["notes"]
assert any("counted at their %d stored bytes" % E[N][U]["bytes"] in n for n in notes), notes
assert "warning" in ERR and "ggml type 142" in ERR, ERR' "$name"
    check "$tag: estimate (text)" bash -c "'$ONNXQ' estimate '$f' 2>/dev/null | grep -q 'counted at their'"

    run "$ONNXQ" hash --sha256 "$f"
    check "$tag: hash: the unknown tensor's bytes" py '
line = [l.split() for l in OUT.splitlines() if l.endswith(":" + U)]
assert line and line[0][:2] == ["sha256", E[N][U]["sha256"]], (line, E[N][U])' "$name"
    run "$ONNXQ" hash --sha256 --json "$f"
    check "$tag: hash --json" py '
h = [x for x in json.loads(OUT)["hashes"] if x["tensor"] == U]
assert [x["hash"] for x in h] == [E[N][U]["sha256"]], h' "$name"

    run "$ONNXQ" dequant "$f" --tensor token_embd.weight -o embd.npy
    check "$tag: dequant of a known tensor" py '
want = np.array([(i % 7) - 3 for i in range(128)], dtype=np.float32).reshape(2, 64)
got = np.load("embd.npy")
assert got.dtype == np.float32 and np.array_equal(got, want), got' "$name"
    run "$ONNXQ" dequant "$f" --tensor output_norm.weight -o norm.npy
    check "$tag: dequant of the tensor after it" py '
assert np.array_equal(np.load("norm.npy"), np.arange(64, dtype=np.float32) / 8)' "$name"
    check "$tag: dequant of the unknown tensor: exit 2" expect_exit 2 "$ONNXQ" dequant "$f" --tensor "$U" -o u.npy
    check "$tag: ... naming its type" py 'assert "ggml type 142" in ERR and "does not know" in ERR and len(ERR.splitlines()) == 1, ERR' "$name"
    check "$tag: ... and writing nothing" test ! -e u.npy

    rm -rf all
    check "$tag: dequant --all: exit 2" expect_exit 2 "$ONNXQ" dequant "$f" --all --out-dir all
    check "$tag: ... nothing written" py 'import os; assert not os.path.exists("all") or not os.listdir("all"), os.listdir("all")' "$name"
    check "$tag: dequant --all --skip-unknown" expect_exit 0 "$ONNXQ" dequant "$f" --all --skip-unknown --out-dir all
    check "$tag: ... writes the others, names the skipped" py '
import os
assert sorted(os.listdir("all")) == ["output_norm.weight.npy", "token_embd.weight.npy"], os.listdir("all")
assert U in ERR and "142" in ERR, ERR' "$name"

    rm -f m.safetensors
    check "$tag: export: exit 2" expect_exit 2 "$ONNXQ" export "$f" -o m.safetensors
    check "$tag: ... nothing written" test ! -e m.safetensors
    check "$tag: export --skip-unknown" expect_exit 0 "$ONNXQ" export "$f" --skip-unknown -o m.safetensors
    check "$tag: ... the other two tensors" py '
import struct
b = open("m.safetensors", "rb").read()
h = json.loads(b[8:8 + struct.unpack("<Q", b[:8])[0]])
assert sorted(k for k in h if k != "__metadata__") == ["output_norm.weight", "token_embd.weight"], h' "$name"

    check "$tag: stats of everything: exit 2" expect_exit 2 "$ONNXQ" stats --json "$f"
    run "$ONNXQ" stats --json --skip-unknown "$f"
    check "$tag: stats --skip-unknown" py 'assert sorted(r["name"] for r in json.loads(OUT)) == ["output_norm.weight", "token_embd.weight"]' "$name"

    run "$ONNXQ" diff --json "$f" "$f"
    check "$tag: diff with itself" py '
row = [r for r in json.loads(OUT)["tensors"] if r["name"] == U]
assert row and row[0]["identical_bytes"] and not row[0]["compared"] and row[0]["type_a"] == "type 142", row' "$name"
  done
done

# diff: the unknown tensor's bytes are compared as stored.
check "diff: changed bytes of the unknown tensor differ" expect_exit 4 "$ONNXQ" diff --exit-code root/mid.gguf root/mid-changed.gguf
run "$ONNXQ" diff root/mid.gguf root/mid-changed.gguf
check "diff (text): one changed" py 'assert "3 tensors in both (1 changed)" in OUT, OUT' mid

# check: a warning naming the type, and no error of its own. (The last file ends without the padding
# after its last tensor, which ggml's reader would refuse: that error stays.)
for name in mid last mid-be; do
  run "$ONNXQ" check --json "root/$name.gguf"
  check "check $name: unknown-tensor-type warning with its id" py '
j = json.loads(OUT)
w = [f for f in j["findings"] if f["code"] == "unknown-tensor-type"]
assert len(w) == 1 and w[0]["severity"] == "warning" and "142" in w[0]["message"] and w[0]["tensor"] == U, j
errors = [f["code"] for f in j["findings"] if f["severity"] == "error"]
assert errors == ([] if N != "last" else ["data-section-truncated"]), errors' "$name"
done

# An unknown tensor whose offset lies past the end of the file: nothing can be inferred.
check "past-end: info exit 2" expect_exit 2 "$ONNXQ" info root/past-end.gguf
check "past-end: ... says why" py 'assert "cannot be inferred" in ERR and "142" in ERR, ERR' past-end
run "$ONNXQ" check --json root/past-end.gguf
check "past-end: check reports an error" py '
j = json.loads(OUT)
assert [f["severity"] for f in j["findings"] if f["code"] == "unknown-type-size"] == ["error"], j' past-end

# PrismML's Q2_0 blocks: one line naming the tensors, the variant and ggml's layout.
check "prism: info exit 2" expect_exit 2 "$ONNXQ" info root/prism.gguf
check "prism: the variant named in one line" py '
assert len(ERR.splitlines()) == 1, ERR
for part in ["blk.0.attn_q.weight", "blk.0.attn_k.weight", "PrismML", "128 values in 34-byte blocks",
             "64 values in 18 bytes", "does not decode"]:
    assert part in ERR, (part, ERR)' prism
check "prism: dequant exit 2 too" expect_exit 2 "$ONNXQ" dequant root/prism.gguf --all --out-dir p
run "$ONNXQ" check --json root/prism.gguf
check "prism: check reports fork-layout" py '
codes = [(f["code"], f["severity"]) for f in json.loads(OUT)["findings"]]
assert ("fork-layout", "error") in codes and "data-outside-file" not in [c for c, _ in codes], codes' prism

# One Q2_0 tensor that fits no layout: the plain error, no variant named.
check "missized: info exit 2" expect_exit 2 "$ONNXQ" info root/missized.gguf
check "missized: today's error" py 'assert "lies outside the" in ERR and "PrismML" not in ERR, ERR' missized

# The writers (issue 34): edit copies an unknown tensor byte for byte (read back by gguf_tool);
# convert-endian refuses such a file, naming the tensor and its type id, before writing anything.
for name in mid last; do
  "$ONNXQ" edit root/$name.gguf -o edited-$name.gguf --set general.name=str:edited
  check "$name: edit keeps every tensor, the unknown one byte for byte" env PYTHONPATH="$here" "$PYTHON" -c '
import hashlib, json, sys
from gguf_tool import read_gguf
expect = json.load(open("root/expect.json"))[sys.argv[2]]
_, tensors, _ = read_gguf(open(sys.argv[1], "rb").read())
assert [t[0].decode() for t in tensors] == list(expect)
for name, _, ggml_type, offset, raw in tensors:
    e = expect[name.decode()]
    assert (ggml_type, offset) == (e["type"], e["offset"]), name
    # The writer pads the end of the file, which the input (last) may not have done.
    assert hashlib.sha256(raw[:e["bytes"]]).hexdigest() == e["sha256"] and not any(raw[e["bytes"]:]), name' edited-$name.gguf $name
  run "$ONNXQ" check --json edited-$name.gguf
  check "$name: the edited file passes check (no error)" py '
assert [f for f in json.loads(OUT)["findings"] if f["severity"] == "error"] == []' $name
done
for case in mid:big mid-be:little; do
  name=${case%:*}
  check "$name: convert-endian refuses (exit 2)" expect_exit 2 "$ONNXQ" convert-endian root/$name.gguf -o converted.gguf --to ${case#*:}
  check "$name: ... naming the tensor and its type" py 'assert U in ERR and "142" in ERR, ERR' $name
  check "$name: ... writing nothing" test ! -e converted.gguf
done

finish
