#!/usr/bin/env bash
# Model views (issue 25): info's model and tokenizer summaries, tokens, and --markdown on info, meta
# and list, on small models written by model_files.py (llama-like with a tokenizer, per-layer KV
# heads, a sliding-window, a recurrent and an MoE architecture, one with missing and odd keys).
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
here=$(dirname "$0")
PYTHONPATH=$here "$PYTHON" "$here/model_files.py" "$WORK"
m=$WORK

# --- info: the model and tokenizer sections, text ---
"$ONNXQ" info "$m/llama.gguf" >"$WORK/info.txt"
check "info keeps its header lines" grep -q '^tensors: *39$' "$WORK/info.txt"
check "info names the architecture" grep -qx '  architecture: *llama' "$WORK/info.txt"
check "info labels the file type as llama.cpp does" grep -qx '  file type: *MOSTLY_Q4_K_M (15)' "$WORK/info.txt"
check "info shows heads and KV heads" bash -c "grep -qx '  heads: *8' '$WORK/info.txt' && grep -qx '  KV heads: *2' '$WORK/info.txt'"
check "info shows the head size llama.cpp derives" grep -qx '  head size: *8 (K), 8 (V)' "$WORK/info.txt"
check "info shows the RoPE base" grep -qx '  RoPE: *base 500000' "$WORK/info.txt"
check "info shows each special token's id and text" bash -c "grep -qx '  bos: *1 \"<s>\"' '$WORK/info.txt' && grep -qx '  eot: *3 \"<|eot_id|>\"' '$WORK/info.txt'"
check "info shows the vocabulary and merges" bash -c "grep -qx '  tokens: *40' '$WORK/info.txt' && grep -qx '  merges: *3' '$WORK/info.txt'"
check "info shows the chat template's size and how to print it" grep -qE '^  chat template: *67 bytes \(onnxq meta .*llama.gguf --key tokenizer.chat_template\)$' "$WORK/info.txt"
check "and meta --key prints it" test "$("$ONNXQ" meta "$m/llama.gguf" --key tokenizer.chat_template)" = "$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["template"])' "$m/models.json")"
"$ONNXQ" info "$m/perlayer.gguf" >"$WORK/perlayer.txt"
check "info summarizes per-layer KV heads" grep -qx '  KV heads: *4 on 2 layers, 2 on 2 layers' "$WORK/perlayer.txt"
"$ONNXQ" info "$m/gemma2.gguf" >"$WORK/gemma2.txt"
check "info shows the sliding window and its layers" grep -qx '  sliding window: *1024 tokens (standard) on 2 of 4 layers' "$WORK/gemma2.txt"
"$ONNXQ" info "$m/mamba.gguf" >"$WORK/mamba.txt"
check "info shows recurrent layers" grep -qx '  recurrent layers: *2 of 2 (ssm state)' "$WORK/mamba.txt"
check "info shows a guessed file type as guessed" grep -q '^  file type: *MOSTLY_Q4_0 (no general.file_type; guessed' "$WORK/mamba.txt"
check "info shows experts" grep -qx '  experts: *4, 2 used per token' <("$ONNXQ" info "$m/moe.gguf")
check "info on a model with odd keys: exit 0" expect_exit 0 "$ONNXQ" info "$m/bare.gguf"
check "and notes what it ignored" grep -qx '  note: *mystery.block_count is str, expected a non-negative integer; ignored' "$WORK/out"
check "the zoo (no tokenizer) has no tokenizer section" bash -c "! '$ONNXQ' info '$TESTDATA/zoo.gguf' | grep -q '^Tokenizer'"

# --- info --json ---
for f in llama perlayer gemma2 mamba moe bare; do "$ONNXQ" info --json "$m/$f.gguf" >"$WORK/$f.json"; done
"$ONNXQ" info --json "$TESTDATA/zoo.gguf" >"$WORK/zoo.json"
check "info --json: model and tokenizer facts" "$PYTHON" - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
d = {f: json.load(open(f"{w}/{f}.json")) for f in ("llama", "perlayer", "gemma2", "mamba", "moe", "bare", "zoo")}
m, t = d["llama"]["model"], d["llama"]["tokenizer"]
assert m["architecture"] == "llama" and m["name"] == "Tiny Llama | test", m
assert m["file_type"] == {"id": 15, "name": "MOSTLY_Q4_K_M", "guessed": False}, m["file_type"]
assert (m["context_length"], m["embedding_length"], m["block_count"]) == (8192, 64, 4), m
assert (m["head_count"], m["head_count_kv"], m["head_dim_k"], m["feed_forward_length"]) == (8, 2, 8, 128), m
assert m["rope"]["freq_base"] == 500000.0 and m["vocab_size"] == 40 and m["kv_cache_layers"] == [0, 1, 2, 3], m
assert m["parameters"] == d["llama"]["parameters"] and m["tensor_bytes"] == d["llama"]["tensor_bytes"]
assert (t["model"], t["pre"], t["tokens"], t["merges"], t["scores"], t["token_types"]) == ("llama", "default", 40, 3, True, True), t
special = {s["role"]: (s["id"], s["text"]) for s in t["special"]}
assert special == {"bos": (1, "<s>"), "eos": (2, "</s>"), "eot": (3, "<|eot_id|>"), "unknown": (0, "<unk>"),
                   "padding": (9, "<pad>")}, special
assert t["add_bos_token"] is True and t["add_eos_token"] is False and t["chat_template_bytes"] == 67, t
assert d["perlayer"]["model"]["head_count_kv"] == [2, 4, 2, 4], d["perlayer"]["model"]
assert d["gemma2"]["model"]["sliding_window"] == {"size": 1024, "kind": "standard", "layers": [0, 2]}
r = d["mamba"]["model"]["recurrent"]
assert r == {"state": "ssm", "layers": [0, 1], "r_values": 3 * 128, "s_values": 16 * 128}, r
assert d["mamba"]["model"]["kv_cache"] is False and d["mamba"]["tokenizer"] is None
moe = d["moe"]["model"]
assert (moe["expert_count"], moe["expert_used_count"], moe["expert_feed_forward_length"]) == (4, 2, 64), moe
b = d["bare"]["model"]
assert b["block_count"] is None and b["layers"] == 2 and len(b["notes"]) == 3, b
z = d["zoo"]
assert z["model"]["architecture"] == "onnxq-test" and z["model"]["file_type"]["guessed"] and z["tokenizer"] is None
PY

# --- --markdown: GitHub tables of the same facts ---
"$ONNXQ" info --markdown "$m/llama.gguf" >"$WORK/info.md"
"$ONNXQ" meta --markdown "$m/llama.gguf" >"$WORK/meta.md"
"$ONNXQ" list --markdown "$m/llama.gguf" >"$WORK/list.md"
"$ONNXQ" list --json "$m/llama.gguf" >"$WORK/list.json"
"$ONNXQ" meta --json "$m/llama.gguf" >"$WORK/meta.json"
check "--markdown tables are well formed and hold the same facts" env PYTHONPATH="$here" "$PYTHON" - "$WORK" <<'PY'
import json, sys
from markdown_tables import tables
w = sys.argv[1]
info = tables(open(f"{w}/info.md").read())
by_heading = {h: dict((r[0], r[1]) for r in rows) for h, header, rows in info if header == ["Property", "Value"]}
assert by_heading["Model"]["architecture"] == "`llama`" and by_heading["Model"]["KV heads"] == "2", by_heading
assert by_heading["Model"]["name"] == "`Tiny Llama | test`", by_heading["Model"]  # the pipe survives the table
assert by_heading["Tokenizer"]["eot"] == '`3 "<|eot_id|>"`', by_heading["Tokenizer"]
types = [rows for h, header, rows in info if h == "Tensor types"][0]
assert [r[0] for r in types] == ["F32", "F16", "Q4_0", "Q8_0"], types
meta = json.load(open(f"{w}/meta.json"))
(h, header, rows), = tables(open(f"{w}/meta.md").read())
assert header == ["#", "key", "type", "value"] and len(rows) == len(meta), (header, len(rows))
assert [r[1].strip("`") for r in rows] == [e["key"] for e in meta]
assert rows[1][3] == '`"Tiny Llama | test"`', rows[1]
listing = json.load(open(f"{w}/list.json"))
md = tables(open(f"{w}/list.md").read())
overview = [rows for h, header, rows in md if h == "Groups"][0]
groups = {}
for t in listing:
    g = ".".join(t["name"].split(".")[:2]) if t["name"].startswith("blk.") else "base"
    n, e, b = groups.get(g, (0, 0, 0))
    groups[g] = (n + 1, e + t["elements"], b + t["bytes"])
assert [r[0].strip("`") for r in overview] == ["base", "blk.0", "blk.1", "blk.2", "blk.3"], overview
for name, tensors, elements, nbytes, bpw in overview:
    g = groups[name.strip("`")]
    assert (int(tensors), int(elements), int(nbytes)) == g, (name, g)
    assert bpw == f"{8 * g[2] / g[1]:.4f}", (name, bpw)
per_group = {h: rows for h, header, rows in md if h not in ("Groups",)}
assert [r[0].strip("`") for r in per_group["blk.2"]] == [t["name"] for t in listing if t["name"].startswith("blk.2.")]
PY
check "--markdown with --json is a usage error" expect_exit 1 "$ONNXQ" info --markdown --json "$m/llama.gguf"
check "meta --markdown --key chooses rows" test "$("$ONNXQ" meta --markdown "$m/llama.gguf" -k general.name -k general.file_type | grep -c '^| [0-9]')" = 2

# --- tokens ---
"$ONNXQ" tokens "$m/llama.gguf" >"$WORK/tokens.txt"
check "tokens lists the whole vocabulary" test "$(wc -l <"$WORK/tokens.txt")" = 41
check "tokens shows id, quoted text, type, score and role" grep -qE '^ +1 +"<s>" +control +-1 +bos$' "$WORK/tokens.txt"
check "tokens escapes control characters as the tables do" grep -qE '^ +6 +"a\\tb" +normal +-6 *$' "$WORK/tokens.txt"
check "tokens by id" test "$("$ONNXQ" tokens "$m/llama.gguf" 4 2 | awk 'NR > 1 {print $1}' | tr '\n' ' ')" = "2 4 "
check "tokens --find matches the stored text" test "$("$ONNXQ" tokens "$m/llama.gguf" --find world | awk 'NR > 1 {print $1}')" = 5
check "tokens --special: control, user-defined, unknown and named ones" test "$("$ONNXQ" tokens "$m/llama.gguf" --special | awk 'NR > 1 {print $1}' | tr '\n' ' ')" = "0 1 2 3 8 9 "
"$ONNXQ" tokens --json "$m/llama.gguf" >"$WORK/tokens.json"
"$ONNXQ" tokens --markdown "$m/llama.gguf" >"$WORK/tokens.md"
check "tokens --json and --markdown give every token's exact text" env PYTHONPATH="$here" "$PYTHON" - "$WORK" <<'PY'
import json, sys
from markdown_tables import tables
w = sys.argv[1]
want = json.load(open(f"{w}/models.json"))
got = json.load(open(f"{w}/tokens.json"))
assert [t["text"] for t in got] == want["tokens"], got
assert [t["id"] for t in got] == list(range(40))
names = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined"}
assert [t["type"] for t in got] == [names[x] for x in want["types"]]
assert [t["score"] for t in got] == [-float(i) for i in range(40)]
assert got[2]["roles"] == ["eos"] and got[4]["roles"] == []
(_, header, rows), = tables(open(f"{w}/tokens.md").read())
assert header == ["id", "text", "type", "score", "special"] and len(rows) == 40
assert rows[7][1] == '`"x|y"`' and rows[8][1] == '``"back`tick"``', (rows[7], rows[8])
PY
check "tokens: an id out of range is exit 2" expect_exit 2 "$ONNXQ" tokens "$m/llama.gguf" 40
check "and says the vocabulary size" grep -q 'token id 40 is out of range: the vocabulary has 40 tokens' "$WORK/err"
check "tokens: a file without a vocabulary is exit 2" expect_exit 2 "$ONNXQ" tokens "$TESTDATA/zoo.gguf"
check "and says so" grep -q 'no tokenizer vocabulary' "$WORK/err"
check "tokens: a negative id is a usage error" expect_exit 1 "$ONNXQ" tokens "$m/llama.gguf" -- -1

# --- the same views of a big-endian copy, a split copy and a remote copy ---
same() {  # same CMD A B [ARGS...]: CMD --json agrees on A and B but for the fields naming the file
  local cmd=$1 a=$2 b=$3
  shift 3
  "$ONNXQ" "$cmd" --json "$a" "$@" >"$WORK/a.json" && "$ONNXQ" "$cmd" --json "$b" "$@" >"$WORK/b.json" &&
    "$PYTHON" -c '
import json, sys
def strip(d):
    if isinstance(d, dict):
        for k in ("file", "file_size", "data_offset", "n_kv", "n_tensors", "endianness", "shards", "scope"):
            d.pop(k, None)
    return d
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
assert a == b, (a, b)' "$WORK/a.json" "$WORK/b.json"
}
"$PYTHON" "$here/gguf_tool.py" big-endian "$m/llama.gguf" "$WORK/be.gguf" FUGG
check "big-endian: info --json the same" same info "$m/llama.gguf" "$WORK/be.gguf"
check "big-endian: tokens --json the same" same tokens "$m/llama.gguf" "$WORK/be.gguf"
check "big-endian: list --markdown the same" diff <("$ONNXQ" list --markdown "$m/llama.gguf" | tail -n +2) <("$ONNXQ" list --markdown "$WORK/be.gguf" | tail -n +2)
mkdir -p "$WORK/root"
"$PYTHON" "$here/gguf_tool.py" split "$m/llama.gguf" "$WORK/root/split" 3
check "split: info --json of any shard summarizes the model" same info "$m/llama.gguf" "$WORK/root/split-00003-of-00003.gguf"
check "split: tokens of any shard" same tokens "$m/llama.gguf" "$WORK/root/split-00002-of-00003.gguf"
cp "$m/llama.gguf" "$WORK/root/"
start_server "$WORK/root"
check "remote: info --json the same" same info "$m/llama.gguf" "$URL/files/llama.gguf"
check "remote: tokens --json the same" same tokens "$m/llama.gguf" "$URL/files/llama.gguf"
check "remote split: info --json the same" same info "$m/llama.gguf" "$URL/files/split-00001-of-00003.gguf"
finish
