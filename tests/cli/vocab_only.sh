# Tensor-less (vocab-only) GGUF files, in both layouts writers produce: gguf-py's (llama.cpp's
# converter with --vocab-only), which ends right after the metadata, and a padded one. Every
# inspection command reads them as a model with no tensors.
source "$(dirname "$0")/common.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$WORK"
"$PYTHON" - "$HERE" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
from gguf_tool import write_gguf
s = lambda b: struct.pack("<Q", len(b)) + b
strs = lambda xs: struct.pack("<IQ", 8, len(xs)) + b"".join(s(x) for x in xs)
tokens = [b"<s>", b"</s>", b"h", b"e", b"he", b"llo", b"hello"]
# What the converter writes for a vocab-only BPE model: general.* and tokenizer.* keys.
kvs = [(b"general.architecture", 8, s(b"llama")), (b"general.type", 8, s(b"model")),
       (b"general.name", 8, s(b"Tiny Vocab")), (b"tokenizer.ggml.model", 8, s(b"gpt2")),
       (b"tokenizer.ggml.pre", 8, s(b"default")), (b"tokenizer.ggml.tokens", 9, strs(tokens)),
       (b"tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, len(tokens)) + struct.pack("<7i", 3, 3, 1, 1, 1, 1, 1)),
       (b"tokenizer.ggml.merges", 9, strs([b"h e", b"l lo", b"he llo"])),
       (b"tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 0)),
       (b"tokenizer.ggml.eos_token_id", 4, struct.pack("<I", 1)),
       (b"tokenizer.ggml.add_bos_token", 7, b"\x01"),
       (b"tokenizer.chat_template", 8, s(b"{% for m in messages %}{{ m['content'] }}{% endfor %}"))]
write_gguf("vocab.gguf", kvs, [], 32, pad_header=False)
write_gguf("vocab_padded.gguf", kvs, [], 32)
EOF
size=$(stat -c %s vocab.gguf)
check "the gguf-py layout ends before the next multiple of 32 (got $size bytes)" test $((size % 32)) -ne 0
check "the padded layout is padded" test "$(stat -c %s vocab_padded.gguf)" -eq $(((size + 31) / 32 * 32))

# `check` reported every such file as an error (exit 2): "data-section-truncated ... the file ends N
# bytes before the padded end of the data section". ggml's reader accepts it: with no tensors the
# data section is empty.
regression_check_calls_tensorless_file_truncated() {
  local f
  for f in vocab.gguf vocab_padded.gguf; do
    "$ONNXQ" check "$f" >"$WORK/out" 2>"$WORK/err" || return 1
    [ "$(cat "$WORK/out")" = "$f: 0 errors, 0 warnings" ] || return 1
    "$ONNXQ" check --strict "$f" >/dev/null || return 1
  done
}
check regression_check_calls_tensorless_file_truncated regression_check_calls_tensorless_file_truncated
# A file with tensors whose padded data section is cut short is still an error (write_gguf does not
# pad after the last tensor: its 12 bytes end 20 bytes before the padded end of the data section).
"$PYTHON" - "$HERE" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
from gguf_tool import write_gguf
write_gguf("cut.gguf", [], [[b"x", (3,), 0, 0, struct.pack("<3f", 1, 2, 3)]], 32)
EOF
check "a tensor's cut padding is still data-section-truncated" expect_exit 4 "$ONNXQ" check cut.gguf
check "  (the code)" grep -q "error \[data-section-truncated\]" "$WORK/out"

# The other inspection commands: a model with no tensors, nothing else.
for f in vocab.gguf vocab_padded.gguf; do
  check "$f: info exits 0" expect_exit 0 "$ONNXQ" info "$f"
  check "$f: info says 0 tensors, 12 keys" test "$("$ONNXQ" info --json "$f" | "$PYTHON" -c "
import json, sys; j = json.load(sys.stdin); print(j['n_tensors'], j['n_kv'], j['parameters'], j['tensor_bytes'])")" = "0 12 0 0"
  check "$f: meta lists every key" test "$("$ONNXQ" meta --json "$f" | "$PYTHON" -c "
import json, sys; j = json.load(sys.stdin); print(len(j), j[5]['count'], j[5]['value'][6])")" = "12 7 hello"
  check "$f: meta --key" test "$("$ONNXQ" meta "$f" --key general.name)" = "Tiny Vocab"
  check "$f: list --json is empty" test "$("$ONNXQ" list --json "$f")" = "[]"
  check "$f: list exits 0" expect_exit 0 "$ONNXQ" list "$f"
  check "$f: stats --json is empty" test "$("$ONNXQ" stats --json "$f")" = "[]"
  "$ONNXQ" hash "$f" --all --uuid >"$f.hash"
  check "$f: hash: the model lines over no tensor data, as computed independently" \
    cmp -s "$f.hash" <("$PYTHON" "$HERE/hash_expect.py" "$f" "$f" xxh64,xxh3,sha1,sha256,uuid)
  check "$f: hash --check of its own manifest" expect_exit 0 "$ONNXQ" hash "$f" --check "$f.hash"
done
finish
