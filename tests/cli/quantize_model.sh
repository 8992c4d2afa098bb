#!/usr/bin/env bash
# onnxq quantize IN -o OUT.gguf: whole models (GGUF, safetensors, an index of shards). The dry run's
# table and JSON, overrides and --keep, importance matrices, the bytes (ggml's for the common rows),
# metadata, `check` on the output; refusals with their exit codes leaving no output and an existing
# one intact; kill -9 mid-write leaving the old output or the complete new one.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
Q=$TESTDATA/quantize
CLI_DIR=$(cd "$(dirname "$0")" && pwd)
"$PYTHON" "$(dirname "$0")/quantize_models.py" "$TESTDATA" "$WORK" --big 16
mkdir -p "$WORK/srv" && start_server "$WORK/srv"  # (before the cd: serve.bash finds its server beside it)
cd "$WORK"

# The plan, written nowhere.
check "--dry-run prints one row per tensor and writes nothing" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type Q4_K_M --dry-run -o never.gguf >plan.txt && [ ! -e never.gguf ] &&
   [ \$(grep -cE '^(blk|token_embd|output)' plan.txt) = 6 ] && grep -q 'nothing written' plan.txt &&
   grep -q '^output.weight .* F32 *Q6_K' plan.txt && grep -q 'bpw' plan.txt"
check "--dry-run --json gives the same plan" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type Q4_K_M --dry-run --json >plan.json && '$PYTHON' -c '
import json, sys
p = json.load(open(\"plan.json\"))
names = [t[\"name\"] for t in p[\"tensors\"]]
assert names == [\"token_embd.weight\", \"blk.0.attn_norm.weight\", \"blk.0.attn_q.weight\", \"blk.0.ffn_down.weight\",
                 \"blk.1.ffn_up_exps.weight\", \"output.weight\"], names
t = {t[\"name\"]: t for t in p[\"tensors\"]}
assert t[\"output.weight\"][\"to\"] == \"Q6_K\" and t[\"blk.0.attn_norm.weight\"][\"copied\"]
assert p[\"file_type\"] == 15 and p[\"preset\"] and p[\"output\"] is None
assert p[\"bytes_after\"] == sum(x[\"bytes_after\"] for x in p[\"tensors\"])
assert abs(p[\"bits_per_weight_after\"] - 8 * p[\"bytes_after\"] / p[\"elements\"]) < 1e-9
'"

# The real thing: the bytes of the common rows are ggml's, the rest is read back and checked.
tensor_bytes() { "$PYTHON" "$CLI_DIR/quantize_models.py" tensor "$@"; }
export -f tensor_bytes
export PYTHON CLI_DIR
check "q8_0: attn_q's bytes equal ggml's, check finds nothing" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type q8_0 -o q8_out.gguf && '$ONNXQ' check q8_out.gguf &&
   tensor_bytes q8_out.gguf blk.0.attn_q.weight attn_q.bin &&
   cmp attn_q.bin <(head -c \$((\$(stat -c %s '$Q/common.q8_0.bin') / 2)) '$Q/common.q8_0.bin')"
check "Q4_K_M: metadata kept, file type and quantization version u32, json matches the file" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type Q4_K_M -o q4km.gguf --json >run.json && '$ONNXQ' check q4km.gguf &&
   '$ONNXQ' meta q4km.gguf --json >meta.json && '$PYTHON' -c '
import json, os
m = json.load(open(\"meta.json\"))
kv = {e[\"key\"]: (e[\"type\"], e[\"value\"]) for e in m}
value = kv.get
assert value(\"general.name\")[-1] == \"tiny\", value(\"general.name\")
assert value(\"general.file_type\") == (\"u32\", 15), value(\"general.file_type\")
assert value(\"general.quantization_version\") == (\"u32\", 2)
r = json.load(open(\"run.json\"))
assert r[\"file_size\"] == os.path.getsize(\"q4km.gguf\") and r[\"output\"] == \"q4km.gguf\"
'"
check "importance matrix: attn_q's bytes equal ggml's weighted ones" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type q4_k --imatrix w.dat -o w_out.gguf &&
   tensor_bytes w_out.gguf blk.0.attn_q.weight wq.bin &&
   cmp wq.bin <(tail -c \$((\$(stat -c %s '$Q/common.q4_k.bin') / 2)) '$Q/common.q4_k.bin')"
check "--tensor-type (first match wins) and --keep" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type q4_k --tensor-type 'blk.0.ffn_*=q6_k' --tensor-type 'blk.*=q8_0' \
     --keep 'token_embd*' --dry-run --json >o.json && '$PYTHON' -c '
import json
t = {t[\"name\"]: t for t in json.load(open(\"o.json\"))[\"tensors\"]}
assert t[\"blk.0.ffn_down.weight\"][\"to\"] == \"Q6_K\", t[\"blk.0.ffn_down.weight\"]
assert t[\"blk.0.attn_q.weight\"][\"to\"] == \"Q8_0\"
assert t[\"token_embd.weight\"][\"to\"] == \"F16\" and t[\"token_embd.weight\"][\"copied\"]
assert t[\"output.weight\"][\"to\"] == \"Q4_K\"
'"
check "plain targets: F32 to F16 and BF16 round to nearest even (numpy's float16, ggml's bf16 rounding)" bash -c \
  "'$ONNXQ' quantize tiny.gguf --type q4_k --tensor-type 'blk.0.attn_q.weight=f16' --tensor-type 'blk.0.ffn_down.weight=f32' \
     --tensor-type 'output.weight=bf16' -o plain.gguf && tensor_bytes plain.gguf blk.0.attn_q.weight p16.bin &&
   tensor_bytes plain.gguf output.weight pbf.bin && tensor_bytes tiny.gguf output.weight out32.bin &&
   tensor_bytes plain.gguf blk.0.ffn_down.weight p32.bin && tensor_bytes tiny.gguf blk.0.ffn_down.weight bf_in.bin && '$PYTHON' -c '
import numpy as np
x = np.fromfile(\"$Q/common.input.f32\", dtype=\"<f4\")
assert open(\"p16.bin\", \"rb\").read() == x.astype(np.float16).tobytes()
u = np.fromfile(\"out32.bin\", dtype=\"<u4\").astype(np.uint64)
want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(\"<u2\")
assert open(\"pbf.bin\", \"rb\").read() == want.tobytes()
b = np.fromfile(\"bf_in.bin\", dtype=\"<u2\").astype(np.uint32) << 16
assert open(\"p32.bin\", \"rb\").read() == b.astype(\"<u4\").tobytes()
'"
check "--allow-requantize decodes Q8_0 and quantizes it again" bash -c \
  "'$ONNXQ' quantize q8.gguf --type q4_k --allow-requantize -o re.gguf && '$ONNXQ' check re.gguf"
check "safetensors: names, order, shape and --arch" bash -c \
  "'$ONNXQ' quantize m.safetensors --type q8_0 --arch flux -o st.gguf && '$ONNXQ' check st.gguf &&
   '$ONNXQ' list st.gguf >list.txt && sed -n 2p list.txt | grep -q '^model.diffusion.z.weight .*\[32, 256\]' &&
   '$ONNXQ' meta st.gguf --json | grep -A2 '\"general.architecture\"' | grep -q '\"value\": \"flux\"' &&
   tensor_bytes st.gguf model.diffusion.a.weight a.bin &&
   cmp a.bin <(head -c \$((\$(stat -c %s '$Q/common.q8_0.bin') / 2)) '$Q/common.q8_0.bin')"
check "safetensors index of shards" bash -c \
  "'$ONNXQ' quantize shards/model.safetensors.index.json --type q8_0 -o shards.gguf && '$ONNXQ' check shards.gguf"

# Refusals: one line (a usage error adds CLI11's pointer to --help), the exit code, no output, an old one intact.
refused() {  # refused CODE PATTERN ARGS...
  local code=$1 pattern=$2
  shift 2
  rm -f no.gguf
  printf old >old.gguf
  expect_exit "$code" "$ONNXQ" quantize "$@" -o no.gguf && [ ! -e no.gguf ] &&
    expect_exit "$code" "$ONNXQ" quantize "$@" -o old.gguf && [ "$(cat old.gguf)" = old ] &&
    [ "$(grep -vc '^Run with --help' "$WORK/err")" -eq 1 ] && grep -q -- "$pattern" "$WORK/err" ||
    { sed 's/^/  stderr: /' "$WORK/err" >&2; return 1; }
}
check "no --type" refused 1 "give the model's type" tiny.gguf
check "an unknown type" refused 2 "q9" tiny.gguf --type q9
check "a --tensor-type without =" refused 1 "expected GLOB=TYPE" tiny.gguf --type q4_k --tensor-type blk
check "a --tensor-type of an unknown type" refused 1 "'q7_k' is not a block format" tiny.gguf --type q4_k --tensor-type 'x=q7_k'
check "a quantized input without --allow-requantize" refused 2 "blk.0.attn_q.weight" q8.gguf --type q4_k
check "IQ2_XXS without an importance matrix" refused 2 "needs an importance matrix" tiny.gguf --type iq2_xxs
check "a missing input" refused 3 "nothing.gguf" nothing.gguf --type q4_k
printf '\0\0\0\0' >bad.dat
check "a malformed importance matrix (file)" refused 2 "bad.dat: offset 0: the entry count is 0" tiny.gguf --type q4_k --imatrix bad.dat
head -c 200000 tiny.gguf >cut.gguf
check "a cut input" refused 2 "cut.gguf" cut.gguf --type q4_k
check "a model IN that is not a model" refused 1 "IN must be a model" rows.npy --type q4_k
cp tiny.gguf same.gguf
check "the output is the input" bash -c "! '$ONNXQ' quantize same.gguf --type q4_k -o same.gguf 2>err.txt &&
   grep -q 'one of the input files' err.txt && cmp same.gguf tiny.gguf"

# A model on a server (loopback): read through range requests, the same file as from disk.
cp tiny.gguf srv/
check "an http:// model quantizes as the local file does" bash -c \
  "'$ONNXQ' quantize '$URL/files/tiny.gguf' --type q8_0 -o remote_out.gguf && cmp remote_out.gguf q8_out.gguf"

# A split model: any shard names it; the output is one file without the split.* keys.
mkdir -p split && "$PYTHON" "$CLI_DIR/gguf_tool.py" split tiny.gguf split/tiny 3
check "a split input gives one file without split.* keys, the same tensors" bash -c \
  "'$ONNXQ' quantize split/tiny-00002-of-00003.gguf --type q8_0 -o split_out.gguf && '$ONNXQ' check split_out.gguf &&
   ! '$ONNXQ' meta split_out.gguf --json | grep -q '\"split\.' &&
   '$ONNXQ' quantize tiny.gguf --type q8_0 -o whole_out.gguf && cmp split_out.gguf whole_out.gguf"

# A file-size limit (EFBIG, as a full disk would stop it): exit 3, no output, the old one intact.
check "ulimit -f stops the write: exit 3, the old output intact" bash -c \
  "printf old >limited.gguf; status=0; (ulimit -f 64; exec '$ONNXQ' quantize big.gguf --type q8_0 -o limited.gguf) 2>lim.err || status=\$?;
   [ \$status = 3 ] && grep -q 'File too large' lim.err && [ \"\$(cat limited.gguf)\" = old ] && [ -z \"\$(ls -A | grep '\\.onnxq-')\" ]"

# The progress bar: on a terminal only.
if command -v script >/dev/null; then
  script -qc "'$ONNXQ' quantize big.gguf --type q8_0 -o tty.gguf" /dev/null >tty.txt
  check "a progress bar on a terminal" grep -q "quantize \[" tty.txt
  "$ONNXQ" quantize big.gguf --type q8_0 -o file.gguf 2>stderr.txt
  check "no bar when stderr is a file; the same output" bash -c "test ! -s stderr.txt && cmp tty.gguf file.gguf"
fi

# kill -9 at random moments of a slow type: the old output, or the complete new one, nothing else.
"$ONNXQ" quantize big.gguf --type iq3_s --threads 1 -o big_ref.gguf
strike() {
  printf old >kill.gguf
  local status=0
  "$ONNXQ" quantize big.gguf --type iq3_s --threads 1 -o kill.gguf 2>/dev/null &
  local pid=$!
  sleep "$1"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || status=$?
  echo "  kill -9 after $1 s: exit $status"
  [ -z "$(ls -A | grep '\.onnxq-')" ] || { echo "stray temporary" >&2; return 1; }
  if [ "$status" = 0 ]; then cmp kill.gguf big_ref.gguf; else [ "$(cat kill.gguf)" = old ]; fi
}
for pause in 0.1 0.4 0.9; do check "kill -9 after $pause s" strike $pause; done

finish
