#!/usr/bin/env bash
# onnxq edit: every option on the zoo model, a big-endian copy of it and a shard of a split model;
# tensors untouched byte for byte, metadata as asked (read back by gguf_compare.py, not by onnxq),
# the data section kept at its place modulo 4096, --in-place and --dry-run, and `onnxq check`
# finding nothing the input did not have.
source "$(dirname "$0")/common.bash"
TOOL="$(dirname "$0")/gguf_tool.py"
CMP="$(dirname "$0")/gguf_compare.py"
ZOO="$TESTDATA/zoo.gguf"
cd "$WORK"

no_new_findings() {  # IN OUT
  "$ONNXQ" check --json "$1" >before.json || true
  "$ONNXQ" check --json "$2" >after.json || true
  "$PYTHON" "$CMP" findings before.json after.json
}
modulo_kept() {  # IN OUT
  test $(($("$PYTHON" "$CMP" data-offset "$1") % 4096)) = $(($("$PYTHON" "$CMP" data-offset "$2") % 4096))
}

# Every option at once.
printf 'tmpl {{ x }}\n' >template.txt
"$ONNXQ" edit "$ZOO" -o a.gguf --set general.name='new name' --set test.uint16=7 --set test.float32=-0.5 \
  --set test.bool_true=false --set test.int64=-3 --set added.u32=u32:4000000000 --set added.str=str:a=b \
  --set-json test.array_int32='[5,-6]' --set-json added.f32s='f32:[1.5,2]' --set-json added.strs='["x","y"]' \
  --remove 'test.array_u*' --remove test.string_empty \
  --rename test.int8=renamed.int8 --chat-template-file template.txt
check "every option: tensors untouched" "$PYTHON" "$CMP" tensors "$ZOO" a.gguf
check "every option: metadata as asked" "$PYTHON" "$CMP" meta "$ZOO" a.gguf '{
  "set": {"general.name": [8, "new name"], "test.uint16": [2, 7], "test.float32": [6, -0.5],
          "test.bool_true": [7, false], "test.int64": [11, -3], "test.array_int32": [9, [5, [5, -6]]],
          "added.u32": [4, 4000000000], "added.str": [8, "a=b"], "added.f32s": [9, [6, [1.5, 2.0]]],
          "added.strs": [9, [8, ["x", "y"]]],
          "tokenizer.chat_template": [8, "tmpl {{ x }}\n"]},
  "removed": ["test.array_uint8", "test.array_uint16", "test.array_uint32", "test.array_uint64", "test.string_empty"],
  "renamed": {"test.int8": "renamed.int8"}}'
check "every option: data kept modulo 4096" modulo_kept "$ZOO" a.gguf
check "every option: check finds nothing new" no_new_findings "$ZOO" a.gguf

# Between local files the data goes through the kernel (copy_file_range), none through memory.
"$ONNXQ" -v edit "$ZOO" -o k.gguf --set general.name=k 2>k.log
check "data copied in the kernel" grep -q "tensor data 19.8 KiB copied in the kernel, 0 B through memory" k.log

# The chat template from standard input and as text; special tokens by text and by id.
"$ONNXQ" edit "$ZOO" -o vocab.gguf --set-json tokenizer.ggml.tokens='["<unk>","<s>","</s>","<pad>"]'
printf 'from stdin' | "$ONNXQ" edit vocab.gguf -o b.gguf --chat-template-file - --special-token bos='<s>' \
  --special-token eos='#2' --special-token pad='<pad>'
check "special tokens and stdin template" "$PYTHON" "$CMP" meta vocab.gguf b.gguf '{"set": {
  "tokenizer.chat_template": [8, "from stdin"], "tokenizer.ggml.bos_token_id": [4, 1],
  "tokenizer.ggml.eos_token_id": [4, 2], "tokenizer.ggml.padding_token_id": [4, 3]}}'
"$ONNXQ" edit b.gguf -o c.gguf --chat-template 'text {{ y }}'
check "chat template as text" "$PYTHON" "$CMP" meta b.gguf c.gguf '{"set": {"tokenizer.chat_template": [8, "text {{ y }}"]}}'
check "special tokens: check finds nothing new" no_new_findings vocab.gguf b.gguf

# Refusals: exit 2 (bad value) or 1 (usage), naming the option; nothing written.
check "unknown token" expect_exit 2 "$ONNXQ" edit vocab.gguf -o x.gguf --special-token bos=nope
check "names the token" grep -q "no token 'nope'" err
check "id past the vocabulary" expect_exit 2 "$ONNXQ" edit vocab.gguf -o x.gguf --special-token bos='#4'
check "new key without a type" expect_exit 2 "$ONNXQ" edit "$ZOO" -o x.gguf --set new.key=5
check "value out of range" expect_exit 2 "$ONNXQ" edit "$ZOO" -o x.gguf --set test.uint8=256
check "names the value" grep -q "'256' is not a u8" err
check "remove matching nothing" expect_exit 2 "$ONNXQ" edit "$ZOO" -o x.gguf --remove 'nothing.*'
check "rename onto a key" expect_exit 2 "$ONNXQ" edit "$ZOO" -o x.gguf --rename test.int8=test.int16
check "bad JSON" expect_exit 2 "$ONNXQ" edit "$ZOO" -o x.gguf --set-json test.array_int32='[1,'
check "neither -o nor --in-place" expect_exit 1 "$ONNXQ" edit "$ZOO" --set test.uint8=1
check "both -o and --in-place" expect_exit 1 "$ONNXQ" edit "$ZOO" -o x.gguf --in-place
check "output onto the input" expect_exit 2 "$ONNXQ" edit "$ZOO" -o "$ZOO" --set test.uint8=1
# What the reader would refuse, the writer refuses: one line naming the key, nothing written; and
# --dry-run refuses it alike (the same line, the same status) instead of listing the changes.
refused() {  # MESSAGE EDIT-OPTION... (the file edited: $IN, else the zoo)
  local message=$1
  shift
  expect_exit 2 "$ONNXQ" edit "${IN:-$ZOO}" -o probe.gguf "$@" && test "$(wc -l <"$WORK/err")" = 1 &&
    grep -qF "$message" "$WORK/err" && test ! -e probe.gguf && cp "$WORK/err" write.err &&
    expect_exit 2 "$ONNXQ" edit "${IN:-$ZOO}" --dry-run "$@" && cmp -s write.err "$WORK/err" && test ! -s "$WORK/out"
}
check "writer: empty key" refused "metadata key 1 is empty, expected at least 1 byte" --rename general.name=
check "writer: key past the limit" refused "is 65536 bytes long, more than the GGUF specification's limit of 65535" \
  --set "$(printf 'k%.0s' $(seq 65536))=str:x"
check "writer: alignment" refused "general.alignment is 48, expected a power of two" --set general.alignment=u32:48
check "writer: array of arrays" refused "metadata key 'added.nested' holds an array of arrays, which ggml's reader" \
  --set-json added.nested='[[1,2],[3]]'
check "writer: duplicate key" refused "the key 'general.architecture' exists already" \
  --rename general.name=general.architecture
check "no output left by refusals" test ! -e x.gguf

# A key that is not ASCII (the GGUF specification forbids it): the reader takes the file, the
# writer does not write the key, and removing or renaming it is how such a file is mended.
"$PYTHON" "$TOOL" add-key "$ZOO" accent.gguf "mod\xc3\xa8le.taille"
check "non-ASCII key: the file reads" "$ONNXQ" meta accent.gguf -k "$(printf 'mod\xc3\xa8le.taille')"
refused_in() {  # IN MESSAGE EDIT-OPTION...
  local IN=$1
  shift
  refused "$@"
}
check "non-ASCII key: refused, named escaped" refused_in accent.gguf \
  "metadata key 32 'mod\\xc3\\xa8le.taille' is not ASCII (byte 3), as the GGUF specification requires" \
  --set general.name=x
"$ONNXQ" edit accent.gguf -o removed.gguf --remove 'mod*'
check "non-ASCII key: removed" "$PYTHON" "$CMP" meta accent.gguf removed.gguf \
  '{"removed": ["mod\u00e8le.taille"]}'
"$ONNXQ" edit accent.gguf -o renamed.gguf --rename "$(printf 'mod\xc3\xa8le.taille')=model.size"
check "non-ASCII key: renamed" "$PYTHON" "$CMP" meta accent.gguf renamed.gguf \
  '{"renamed": {"mod\u00e8le.taille": "model.size"}}'
check "non-ASCII key: check finds it in the input only" eval \
  '{ "$ONNXQ" check accent.gguf || true; } | grep -q non-ascii-key &&
   ! { "$ONNXQ" check renamed.gguf || true; } | grep -q non-ascii-key'

# --dry-run: key by key, nothing written.
"$ONNXQ" edit "$ZOO" --dry-run --set test.uint8=1 --set new.b=bool:true --remove test.int16 \
  --rename test.int8=other.int8 >dry.txt
check "dry run lists the changes" diff dry.txt - <<'TXT'
remove  test.int16 (was i16 -30000)
rename  test.int8 -> other.int8
set     test.uint8: u8 200 -> u8 1
add     new.b: bool true
4 changes; tensors untouched
TXT

# --in-place: the file is replaced, its tensors intact; the old inode is left as it was.
cp "$ZOO" inplace.gguf
ln -s inplace.gguf link.gguf
"$ONNXQ" edit link.gguf --in-place --set general.name=replaced --set-json test.array_string='["long '"$(printf 'x%.0s' {1..5000})"'"]'
check "in place: the symlink still names the file" test -L link.gguf
check "in place: metadata changed" test "$("$ONNXQ" meta inplace.gguf -k general.name)" = replaced
check "in place: tensors untouched" "$PYTHON" "$CMP" tensors "$ZOO" inplace.gguf
check "in place: grown past 4096, data kept modulo 4096" modulo_kept "$ZOO" inplace.gguf
check "in place: no temporary left" test "$(ls -A | grep -c onnxq)" = 0
"$ONNXQ" edit inplace.gguf --in-place --set general.name='onnxq test zoo A' --set-json test.array_string="$("$ONNXQ" meta --json "$ZOO" -k test.array_string | "$PYTHON" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["test.array_string"]))')"
check "edited back: byte-identical to the original" cmp inplace.gguf "$ZOO"

# A big-endian file stays big-endian, its tensors untouched.
"$PYTHON" "$TOOL" big-endian "$ZOO" be.gguf GGUF
"$ONNXQ" edit be.gguf -o be-edit.gguf --set general.name=big --set-json added='[1,2]'
check "big-endian: still big-endian" grep -q '^byte order: *big-endian' <("$ONNXQ" info be-edit.gguf)
check "big-endian: metadata changed" "$PYTHON" -c 'import json,sys; assert json.load(sys.stdin) == {"general.name": "big", "added": [1, 2]}' \
  < <("$ONNXQ" meta --json -k general.name -k added be-edit.gguf)
"$ONNXQ" diff --json be.gguf be-edit.gguf >diff.json
check "big-endian: every tensor identical" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["tensors"] if isinstance(d, dict) else d
assert len(rows) == 38 and all(r["identical_bytes"] for r in rows), d' diff.json
check "big-endian: check finds nothing new" no_new_findings be.gguf be-edit.gguf

# A shard of a split model is edited alone and still opens with its siblings.
"$PYTHON" "$TOOL" split "$ZOO" m 3
"$ONNXQ" edit m-00001-of-00003.gguf --in-place --set general.name=sharded
check "split: the model opens with the edited shard" test "$("$ONNXQ" meta m-00001-of-00003.gguf -k general.name)" = sharded
check "split: 38 tensors" test "$("$ONNXQ" list --json m-00002-of-00003.gguf | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 38
"$ONNXQ" edit m-00002-of-00003.gguf -o m2.gguf --set general.name=str:x
check "split: a later shard's tensors untouched" "$PYTHON" "$CMP" tensors m-00002-of-00003.gguf m2.gguf
finish
