#!/usr/bin/env bash
# onnxq split and merge (llama-gguf-split's layout): by tensor count and by whole-file size, the first
# shard without tensors; shards read back by split_check.py (keys, metadata, tensors in order), each
# passing `onnxq check` with nothing new, the split model listing and decoding as the original; merge
# giving the original byte for byte (a file in ggml's layout); --dry-run's sizes; refusals of an output
# that is a shard or named like one (the shard intact), a missing shard named; a tensor of unknown type
# round-tripping byte for byte; a remote model split through the range reader.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
here=$(dirname "$0")
SPLIT="$here/split_check.py"
CMP="$here/gguf_compare.py"
ZOO="$TESTDATA/zoo.gguf"
cd "$WORK"

no_new_findings() {  # IN SHARD
  "$ONNXQ" check --json "$1" >before.json || true
  "$ONNXQ" check --json "$2" >after.json || true
  "$PYTHON" "$CMP" findings before.json after.json
}
each_shard_checks() {  # IN SHARD...
  local in=$1 s
  shift
  for s in "$@"; do no_new_findings "$in" "$s" || return 1; done
}
same_listing() {  # A B: onnxq list (offsets and shards aside) and the decoded tensors agree
  "$ONNXQ" list "$1" | awk 'NR > 1 {NF -= 1; print}' >a.list
  "$ONNXQ" list "$2" | awk 'NR > 1 {NF -= 2; print}' >b.list
  test "$(wc -l <a.list)" = 38 && cmp -s a.list b.list || return 1
  rm -rf da db && "$ONNXQ" dequant "$1" --all --out-dir da >/dev/null && "$ONNXQ" dequant "$2" --all --out-dir db >/dev/null &&
    test "$(ls da | wc -l)" -gt 30 && diff -r da db >/dev/null
}
sizes_as_planned() {  # DRY_RUN_OUTPUT: each listed shard has the size the plan gave
  local name count word size rest
  while IFS=$'\t' read -r name count size; do
    case "$name" in *.gguf) test "$(stat -c %s "$name")" = "${size% bytes}" || return 1 ;; esac
  done <"$1"
}
sha() { sha256sum "$1" | cut -d' ' -f1; }

# The zoo model written by our writer (ggml's layout): merge gives it back byte for byte.
"$ONNXQ" edit "$ZOO" -o zoo.gguf --set general.name=zoo
for how in "--max-tensors 7" "--max-size 5K" "--max-size 1" "--max-tensors 10 --no-tensor-first-split"; do
  tag="split $how"
  rm -f p-*.gguf
  # shellcheck disable=SC2086
  "$ONNXQ" split zoo.gguf -o p $how --dry-run >plan.txt
  check "$tag: dry run writes nothing" test -z "$(ls p-*.gguf 2>/dev/null)"
  # shellcheck disable=SC2086
  "$ONNXQ" split zoo.gguf -o p $how
  shards=(p-*.gguf)
  limit=()
  case "$how" in --max-size\ 5K) limit=(--max-bytes 5000) ;; --max-size\ 1) limit=(--max-bytes 1) ;; esac
  check "$tag: shards read back" "$PYTHON" "$SPLIT" shards zoo.gguf "${limit[@]}" "${shards[@]}"
  check "$tag: sizes as planned" sizes_as_planned plan.txt
  check "$tag: plan lists every shard" test "$(grep -c '\.gguf' plan.txt)" = "${#shards[@]}"
  check "$tag: each shard checks clean" each_shard_checks zoo.gguf "${shards[@]}"
  check "$tag: lists and decodes as the original" same_listing zoo.gguf "${shards[1]}"
  rm -f merged.gguf
  "$ONNXQ" merge "${shards[-1]}" -o merged.gguf
  check "$tag: merge is byte-identical" cmp zoo.gguf merged.gguf
done
"$ONNXQ" split zoo.gguf -o one --max-size 1
"$ONNXQ" split zoo.gguf -o same --max-shard-size 1
check "--max-shard-size is the same option as --max-size" test "$(ls same-*-of-00038.gguf | wc -l)" = 38
check "--max-size 1: 38 shards of one tensor" test "$(ls one-*-of-00038.gguf | wc -l)" = 38
"$ONNXQ" split zoo.gguf -o nf --max-tensors 100 --no-tensor-first-split
check "--no-tensor-first-split: two shards" test "$(ls nf-*-of-00002.gguf | wc -l)" = 2
tensor_count() { "$PYTHON" -c 'import struct, sys; print(struct.unpack_from("<Q", open(sys.argv[1], "rb").read(24), 8)[0])' "$1"; }
check "--no-tensor-first-split: no tensor in the first" test "$(tensor_count nf-00001-of-00002.gguf)" = 0
check "--no-tensor-first-split: all in the second" test "$(tensor_count nf-00002-of-00002.gguf)" = 38

# The original zoo file (not in ggml's layout byte for byte, perhaps): same metadata and tensors.
"$ONNXQ" split "$ZOO" -o z --max-tensors 9
"$ONNXQ" merge z-00002-of-00005.gguf -o zm.gguf
check "zoo: merged tensors" "$PYTHON" "$CMP" tensors "$ZOO" zm.gguf
check "zoo: merged metadata" "$PYTHON" "$CMP" meta "$ZOO" zm.gguf '{}'

# Refusals, before anything is written: the shard itself, a name like a shard's, a symlink to a shard.
before=$(sha z-00002-of-00005.gguf)
check "merge onto its shard: exit 2" expect_exit 2 "$ONNXQ" merge z-00001-of-00005.gguf -o z-00002-of-00005.gguf
check "merge onto its shard: named" grep -q "the name is a shard's" err
check "merge onto its shard: shard intact" test "$(sha z-00002-of-00005.gguf)" = "$before"
ln -s z-00002-of-00005.gguf link.gguf
check "merge onto a link to a shard: exit 2" expect_exit 2 "$ONNXQ" merge z-00001-of-00005.gguf -o link.gguf
check "merge onto a link to a shard: named" grep -q "one of the input files" err
check "merge onto a link to a shard: intact" test "$(sha z-00002-of-00005.gguf)" = "$before"
check "merge to a shard-like name: exit 2" expect_exit 2 "$ONNXQ" merge z-00001-of-00005.gguf -o other-00001-of-00002.gguf
check "merge to a shard-like name: nothing written" test ! -e other-00001-of-00002.gguf
check "split onto its own shards: exit 2" expect_exit 2 "$ONNXQ" split z-00001-of-00005.gguf -o z --max-tensors 9
check "split onto its own shards: intact" test "$(sha z-00002-of-00005.gguf)" = "$before"
mv z-00004-of-00005.gguf away.gguf
check "missing shard: exit 3" expect_exit 3 "$ONNXQ" merge z-00001-of-00005.gguf -o gone.gguf
check "missing shard: named" grep -q "z-00004-of-00005.gguf" err
check "missing shard: nothing written" test ! -e gone.gguf
mv away.gguf z-00004-of-00005.gguf
check "no limit: usage error" expect_exit 1 "$ONNXQ" split "$ZOO" -o q
check "both limits: usage error" expect_exit 1 "$ONNXQ" split "$ZOO" -o q --max-size 1M --max-tensors 3
check "bad size: exit 2" expect_exit 2 "$ONNXQ" split "$ZOO" -o q --max-size lots
check "bad size: named" grep -q "lots" err

# A tensor of a type onnxq does not know (142), between two and last: split and merge keep it byte for byte.
mkdir unk
PYTHONPATH=$here "$PYTHON" "$here/unknown_type_files.py" unk
for name in mid last; do
  "$ONNXQ" split "unk/$name.gguf" -o "u$name" --max-tensors 1
  check "unknown type ($name): shards read back" "$PYTHON" "$SPLIT" shards "unk/$name.gguf" u"$name"-*.gguf
  "$ONNXQ" merge "u$name-00001-of-$(printf %05d "$(ls u"$name"-*.gguf | wc -l)").gguf" -o "u$name.gguf"
  check "unknown type ($name): tensors byte for byte" "$PYTHON" "$CMP" tensors "unk/$name.gguf" "u$name.gguf"
  check "unknown type ($name): metadata" "$PYTHON" "$CMP" meta "unk/$name.gguf" "u$name.gguf" '{}'
done

# A remote model: its tensors come through the byte source (no descriptor to copy from).
mkdir root
cp zoo.gguf root/
start_server "$PWD/root"
"$ONNXQ" split "$URL/files/zoo.gguf" -o remote --max-tensors 12
check "remote: shards read back" "$PYTHON" "$SPLIT" shards zoo.gguf remote-*.gguf
"$ONNXQ" merge remote-00001-of-00004.gguf -o remote.gguf
check "remote: merge is byte-identical" cmp zoo.gguf remote.gguf

finish
