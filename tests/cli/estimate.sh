#!/usr/bin/env bash
# onnxq estimate (issue 25): the K and V caches equal gguf-view's formula for llama-family models
# (recomputed here from the file's metadata), follow llama.cpp where it differs (cells rounded up to
# 256, sliding-window layers, recurrent states, quantized cache types); weights are split by
# --gpu-layers; text, JSON and markdown agree; a remote, split or big-endian copy estimates the same,
# and a remote one is read only as far as its header.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
here=$(dirname "$0")
PYTHONPATH=$here "$PYTHON" "$here/model_files.py" "$WORK"
m=$WORK

# gguf-view's calcMemoryUsage (@huggingface/gguf cli.ts): per layer n_embd_head_k * n_head_kv[i] *
# n_ctx elements of f16, n_embd_head_k = key_length or n_embd / n_head, an absent or zero per-layer
# head_count_kv read as n_head.
gguf_view_kv() {  # gguf_view_kv FILE CTX -> "K V" in bytes
  "$ONNXQ" meta --json "$1" | "$PYTHON" -c '
import json, sys
meta = {e["key"]: e["value"] for e in json.load(sys.stdin)}
n_ctx = int(sys.argv[1])
arch = meta.get("general.architecture", "unknown")
n_embd = meta.get(f"{arch}.embedding_length", 0)
n_head = meta.get(f"{arch}.attention.head_count", 0)
hk = meta.get(f"{arch}.attention.key_length", n_embd / n_head)
hv = meta.get(f"{arch}.attention.value_length", n_embd / n_head)
kv = meta.get(f"{arch}.attention.head_count_kv", [])
n_layer = meta.get(f"{arch}.block_count", 0)
heads = [n_head] * n_layer
if isinstance(kv, list):
    heads = [kv[i] if i < len(kv) and kv[i] else n_head for i in range(n_layer)]
else:
    heads = [kv] * n_layer
k = sum(hk * heads[i] * n_ctx for i in range(n_layer)) * 16 / 8
v = sum(hv * heads[i] * n_ctx for i in range(n_layer)) * 16 / 8
print(int(k), int(v))' "$2"
}
ours_kv() { "$ONNXQ" estimate --json --ctx "$2" "$1" | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin)["total"]; print(d["k_cache"], d["v_cache"])'; }
for f in llama perlayer moe; do
  for ctx in 512 4096 8192 32768; do
    check "$f at $ctx tokens: K and V equal gguf-view's" test "$(ours_kv "$m/$f.gguf" $ctx)" = "$(gguf_view_kv "$m/$f.gguf" $ctx)"
  done
done
# The figures by hand: llama.gguf has 4 layers of 2 KV heads of 8 (16 values per cell) in f16.
check "llama at 4096: 4 x 4096 x 16 x 2 bytes each" test "$(ours_kv "$m/llama.gguf" 4096)" = "524288 524288"
check "a context of 1000 is 1024 cells, as llama.cpp rounds it" test "$(ours_kv "$m/llama.gguf" 1000)" = "131072 131072"
check "where gguf-view does not round" test "$(gguf_view_kv "$m/llama.gguf" 1000)" = "128000 128000"
# gemma2: layers 0 and 2 keep min(8192, 1024 + 512) cells; gguf-view counts all four at 8192.
check "sliding-window layers keep a window of cells" test "$(ours_kv "$m/gemma2.gguf" 8192)" = "$(((2 * 1536 + 2 * 8192) * 16 * 2)) $(((2 * 1536 + 2 * 8192) * 16 * 2))"
check "recurrent layers keep no KV cache" test "$(ours_kv "$m/mamba.gguf" 4096)" = "0 0"

"$ONNXQ" estimate --json --ctx 4096 "$m/llama.gguf" >"$WORK/full.json"
"$ONNXQ" estimate --json --ctx 4096 --gpu-layers 2 --kv-type q8_0 --kv-type-v f32 "$m/moe.gguf" >"$WORK/moe.json"
"$ONNXQ" estimate --json --ctx 4096 --gpu-layers 0 "$m/llama.gguf" >"$WORK/cpu.json"
"$ONNXQ" estimate --json --ctx 4096 --gpu-layers 2 "$m/llama.gguf" >"$WORK/half.json"
"$ONNXQ" estimate --json --ctx 4096 "$m/mamba.gguf" >"$WORK/mamba.json"
"$ONNXQ" list --json "$m/llama.gguf" >"$WORK/list.json"
check "weights, offload and caches by hand" "$PYTHON" - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
full, cpu, half, moe, mamba = (json.load(open(f"{w}/{n}.json")) for n in ("full", "cpu", "half", "moe", "mamba"))
tensors = json.load(open(f"{w}/list.json"))
nbytes = lambda pred: sum(t["bytes"] for t in tensors if pred(t["name"]))
layer = lambda i: nbytes(lambda n: n.startswith(f"blk.{i}."))
embeddings, output = nbytes(lambda n: n.startswith("token_")), nbytes(lambda n: n.startswith("output"))
# Everything offloaded: only the embeddings stay in RAM.
assert full["ram"]["weights"] == embeddings and full["vram"]["weights"] == sum(map(layer, range(4))) + output, full
assert full["offloaded_layers"] == 4 and full["output_offloaded"] and full["kv_cells"] == 4096
assert full["total"]["weights"] == sum(t["bytes"] for t in tensors)
# Compute, 512 tokens: max(logits 4*512*(40+64), layers 4*512*(2*64+3*128)) on the GPU.
assert full["vram"]["compute"] == 4 * 512 * 512 and full["ram"]["compute"] == 0, full
assert full["compute_is_approximate"] is True
# Nothing offloaded.
assert cpu["vram"]["total"] == 0 and cpu["ram"]["total"] == full["total"]["total"], cpu
# The last two layers offloaded; the output layer stays in RAM with the first two.
assert half["vram"]["weights"] == layer(2) + layer(3) and half["ram"]["weights"] == embeddings + layer(0) + layer(1) + output
assert half["vram"]["k_cache"] == half["ram"]["k_cache"] == 2 * 4096 * 16 * 2
assert half["total"]["k_cache"] == half["total"]["v_cache"] == 4 * 4096 * 16 * 2, half["total"]
assert [l["offloaded"] for l in half["per_layer"]] == [False, False, True, True]
assert half["ram"]["compute"] == half["vram"]["compute"] == 4 * 512 * 512
# MoE, q8_0 K (34 bytes per 32 values) and f32 V: 2 layers of one KV head of 32.
assert (moe["k_type"], moe["v_type"]) == ("q8_0", "f32") and moe["total"]["k_cache"] == 2 * 4096 * 34
assert moe["total"]["v_cache"] == 2 * 4096 * 32 * 4, moe["total"]
# --gpu-layers 2 of 2: every layer, but the output layer stays on the CPU, with the logits of the
# compute buffer (4*512*(100+64)); on the GPU the FFN of 2 active experts of 64 (128) beats the dense
# 32: 4*512*(2*64 + 3*128).
assert moe["offloaded_layers"] == 2 and not moe["output_offloaded"]
assert moe["vram"]["compute"] == 4 * 512 * 512 and moe["ram"]["compute"] == 4 * 512 * 164, moe["ram"]
# Mamba: (4 - 1) * 128 + 16 * 128 f32 values per layer.
assert mamba["total"]["recurrent_state"] == 2 * (384 + 2048) * 4 and mamba["total"]["k_cache"] == 0, mamba["total"]
assert [l["attention"] for l in mamba["per_layer"]] == ["recurrent", "recurrent"]
PY

# Text and markdown show the same figures.
"$ONNXQ" estimate --ctx 4096 --per-layer "$m/gemma2.gguf" >"$WORK/gemma2.txt"
"$ONNXQ" estimate --ctx 4096 --per-layer --markdown "$m/gemma2.gguf" >"$WORK/gemma2.md"
check "text: the K cache row" grep -qE '^K cache +0 B +352\.00 KiB +352\.00 KiB$' "$WORK/gemma2.txt"
check "text: the cells of both kinds of layer" grep -qx 'context: *4096 tokens in 4096 KV cells (1536 on sliding-window layers)' "$WORK/gemma2.txt"
check "text: the compute buffer is marked approximate" grep -qE '^compute \(approx\.\) ' "$WORK/gemma2.txt"
check "text: per-layer rows" grep -qE '^ +0 +GPU +sliding window +1536 ' "$WORK/gemma2.txt"
check "markdown: the same tables" env PYTHONPATH="$here" "$PYTHON" - "$WORK/gemma2.md" <<'PY'
import sys
from markdown_tables import tables
t = {h: rows for h, header, rows in tables(open(sys.argv[1]).read())}
memory = {r[0]: r[1:] for r in t["Memory"]}
assert memory["K cache"] == ["0 B", "352.00 KiB", "352.00 KiB"], memory
assert [r[2] for r in t["Layers"]] == ["sliding window", "full", "sliding window", "full"], t["Layers"]
PY
"$ONNXQ" estimate --ctx 4096 "$m/bare.gguf" >"$WORK/bare.txt"
check "missing keys: an estimate of the weights and notes" grep -q '^note: no mystery.embedding_length' "$WORK/bare.txt"

# Errors: one line, naming the file and what was wrong.
check "a q4_0 K cache that does not divide the 16-value rows: exit 2" expect_exit 2 "$ONNXQ" estimate --kv-type q4_0 "$m/llama.gguf"
check "and says why" grep -q "llama.gguf: K cache type q4_0 stores blocks of 32 values, which do not divide layer 0's K row of 16 values" "$WORK/err"
check "a cache type llama.cpp does not accept is a usage error" expect_exit 1 "$ONNXQ" estimate --kv-type q2_k "$m/llama.gguf"
check "--ctx 0 is a usage error" expect_exit 1 "$ONNXQ" estimate --ctx 0 "$m/llama.gguf"
check "--gpu-layers -2 is a usage error" expect_exit 1 "$ONNXQ" estimate --gpu-layers -2 "$m/llama.gguf"
check "a missing file is exit 3" expect_exit 3 "$ONNXQ" estimate "$WORK/nope.gguf"

# The same estimate from a big-endian copy, a split copy and over HTTP.
same_estimate() {  # same_estimate A B: the JSON agrees but for the file name
  "$ONNXQ" estimate --json --ctx 8192 --gpu-layers 3 "$1" >"$WORK/a.json" &&
    "$ONNXQ" estimate --json --ctx 8192 --gpu-layers 3 "$2" >"$WORK/b.json" &&
    "$PYTHON" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("file"); b.pop("file")
assert a == b, (a, b)' "$WORK/a.json" "$WORK/b.json"
}
for magic in GGUF FUGG; do
  "$PYTHON" "$here/gguf_tool.py" big-endian "$m/perlayer.gguf" "$WORK/be-$magic.gguf" "$magic"
  check "big-endian ($magic) estimates the same" same_estimate "$m/perlayer.gguf" "$WORK/be-$magic.gguf"
done
mkdir -p "$WORK/root"
"$PYTHON" "$here/gguf_tool.py" split "$m/perlayer.gguf" "$WORK/root/split" 3
check "any shard of a split model estimates the whole model" same_estimate "$m/perlayer.gguf" "$WORK/root/split-00002-of-00003.gguf"
rm "$WORK/root/split-00003-of-00003.gguf"
check "a split model with a missing shard is exit 3" expect_exit 3 "$ONNXQ" estimate "$WORK/root/split-00001-of-00003.gguf"
# 16 MiB of tensor data behind a header of a few KiB.
PYTHONPATH=$here "$PYTHON" - "$WORK/root/big.gguf" <<'PY'
import sys
import model_files as mf
kv, ts = mf.llama()
ts.append(mf.tensor("blk.3.ffn_extra.weight", [4096, 2048], mf.F16))
mf.write_gguf(sys.argv[1], [(k.encode(), t, p) for k, (t, p) in kv], ts, 32)
PY
start_server "$WORK/root"
check "over http the estimate is the local one" same_estimate "$WORK/root/big.gguf" "$URL/files/big.gguf"
bytes=$(sent /files/big.gguf)
check "reading only the header: $bytes of 16 MiB sent" test "$bytes" -lt 1048576
check "and hf:// too" env HF_ENDPOINT="$URL" bash -c "mkdir -p '$WORK/root/hf/org/repo/main' && cp '$WORK/root/big.gguf' '$WORK/root/hf/org/repo/main/' && $(declare -f same_estimate); ONNXQ='$ONNXQ' PYTHON='$PYTHON' WORK='$WORK' same_estimate '$WORK/root/big.gguf' hf://org/repo/big.gguf"
finish
