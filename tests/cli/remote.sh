#!/usr/bin/env bash
# Remote files: every read command on http://, https:// and hf:// paths served by a loopback test
# server (range_server.py), equal to the local results; the transfer bounds for a model with a
# tokenizer-sized header; one clean line, exit 3 and no output file for each fault.
source "$(dirname "$0")/common.bash"
here=$(dirname "$0")
# Nothing may leave the machine: no proxy from the environment, no token unless a check sets one.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY HF_TOKEN ONNXQ_TIMEOUT
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR
export HF_ENDPOINT=http://127.0.0.1:9  # overridden below; never the real Hub

servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_server NAME ARGS...: runs range_server.py over $WORK/root; sets PORT; log in $WORK/NAME.log.
start_server() {
  local name=$1
  shift
  rm -f "$WORK/$name.port"
  "$PYTHON" "$here/range_server.py" "$WORK/root" "$WORK/$name.log" "$WORK/$name.port" "$@" &
  servers+=($!)
  for _ in $(seq 100); do
    [ -s "$WORK/$name.port" ] && break
    sleep 0.1
  done
  PORT=$(cat "$WORK/$name.port")
}

# The request log since the last mark. Only requests for PREFIX count: the server may still be
# logging a request of the check before.
mark_log() { : >"$WORK/$1.log"; }
log_sum() {  # log_sum NAME FIELD PREFIX: sum of FIELD (sent), or the request count (count)
  "$PYTHON" -c '
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["path"].startswith(sys.argv[3])]
print(len(rows) if sys.argv[2] == "count" else sum(r[sys.argv[2]] for r in rows))' "$WORK/$1.log" "$2" "$3"
}

# Local files to serve: the zoo, its three shards, and the tokenizer-sized model.
mkdir -p "$WORK/root/hf/org/repo/main" "$WORK/root/hf/org/repo/v2" "$WORK/root/hf/gated/repo/main" "$WORK/local"
cp "$TESTDATA/zoo.gguf" "$WORK/root/zoo.gguf"
"$PYTHON" "$here/gguf_tool.py" split "$TESTDATA/zoo.gguf" "$WORK/root/zoo3" 3
cp "$TESTDATA/zoo.gguf" "$WORK/root/hf/org/repo/main/zoo.gguf"
# Revision v2 of the repository's zoo.gguf: its first five tensors only.
PYTHONPATH=$here "$PYTHON" -c '
import sys
from gguf_tool import read_gguf, write_gguf
kvs, tensors, alignment = read_gguf(open(sys.argv[1], "rb").read())
write_gguf(sys.argv[2], kvs, tensors[:5], alignment)' "$TESTDATA/zoo.gguf" "$WORK/local/zoo-v2.gguf"
cp "$WORK/local/zoo-v2.gguf" "$WORK/root/hf/org/repo/v2/zoo.gguf"
cp "$TESTDATA/zoo.gguf" "$WORK/root/hf/gated/repo/main/zoo.gguf"
for i in 1 2 3; do cp "$WORK/root/zoo3-0000$i-of-00003.gguf" "$WORK/root/hf/org/repo/main/"; done
# 64 MiB of Q8_0 and F32 tensors behind a 1.3 MB header (a 77k-token vocabulary, as LLM files have).
PYTHONPATH=$here "$PYTHON" - "$WORK/root/big.gguf" <<'PY'
import struct, sys
import numpy as np
from gguf_tool import write_gguf
rng = np.random.default_rng(14)
def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b
tokens = [f"tok{i:06d}" for i in range(77000)]
kvs = [(b"general.architecture", 8, s("llama")), (b"general.name", 8, s("remote test")),
       (b"tokenizer.ggml.model", 8, s("gpt2")),
       (b"tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, len(tokens)) + b"".join(s(t) for t in tokens))]
def q8_0(rows, cols):  # blocks with finite f16 scales and random int8 quants
    n = rows * cols // 32
    d = (rng.standard_normal(n) * 0.01).astype("<f2").view(np.uint8).reshape(n, 2)
    q = rng.integers(-128, 128, size=(n, 32), dtype=np.int8).view(np.uint8)
    return np.concatenate([d, q], axis=1).tobytes()
tensors = [[b"token_embd.weight", (4096, 16), 0, 0, rng.standard_normal(4096 * 16).astype("<f4").tobytes()]]
for i in range(31):
    tensors.append([f"blk.{i}.ffn.weight".encode(), (4096, 512), 8, 0, q8_0(512, 4096)])
write_gguf(sys.argv[1], kvs, tensors, 32)
PY
big_size=$(stat -c %s "$WORK/root/big.gguf")
big_header=$("$ONNXQ" info --json "$WORK/root/big.gguf" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["data_offset"])')
check "the big model is 64 MiB with a header over 1.3 MB" test "$big_size" -gt $((60 << 20)) -a "$big_header" -gt 1300000

start_server plain --token sekrit
url=http://127.0.0.1:$PORT
export HF_ENDPOINT=$url

# --- the same facts as on disk, except the fields that name the file ---
same_json() {  # same_json CMD LOCAL REMOTE [ARGS...]
  local cmd=$1 local_file=$2 remote=$3
  shift 3
  "$ONNXQ" "$cmd" --json "$local_file" "$@" >"$WORK/local.json" &&
    "$ONNXQ" "$cmd" --json "$remote" "$@" >"$WORK/remote.json" &&
    "$PYTHON" - "$WORK/local.json" "$WORK/remote.json" <<'PY'
import json, sys
def strip(doc):  # fields that name the file
    if isinstance(doc, dict):
        doc.pop("file", None)
        for s in doc.get("shards", []):
            s.pop("path")
    return doc
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
assert a == b, "remote JSON differs from local"
PY
}
for cmd in info list meta; do
  check "$cmd --json over http equals local" same_json "$cmd" "$TESTDATA/zoo.gguf" "$url/files/zoo.gguf"
  check "$cmd --json over hf:// equals local" same_json "$cmd" "$TESTDATA/zoo.gguf" hf://org/repo/zoo.gguf
  check "$cmd --json of the big model equals local" same_json "$cmd" "$WORK/root/big.gguf" "$url/files/big.gguf"
done
check "hf://OWNER/REPO@REVISION reads that revision" same_json list "$WORK/local/zoo-v2.gguf" hf://org/repo@v2/zoo.gguf
check "the revision is in the resolve URL" grep -q '"path": "/org/repo/resolve/v2/zoo.gguf"' "$WORK/plain.log"
check "a first shard's URL opens all shards" same_json info "$WORK/root/zoo3-00001-of-00003.gguf" "$url/files/zoo3-00001-of-00003.gguf"
check "split list over hf:// equals local" same_json list "$WORK/root/zoo3-00001-of-00003.gguf" hf://org/repo/zoo3-00001-of-00003.gguf
check "meta --key over http" test "$("$ONNXQ" meta "$url/files/zoo.gguf" --key general.name)" = "onnxq test zoo A"
check "stats --json over http equals local" same_json stats "$TESTDATA/zoo.gguf" "$url/files/zoo.gguf"

# Decoded bytes: dequant, export and diff agree with the local file.
"$ONNXQ" dequant "$TESTDATA/zoo.gguf" --all --out-dir "$WORK/dq-local" -q
"$ONNXQ" dequant "$url/files/zoo.gguf" --all --out-dir "$WORK/dq-remote" -q
check "dequant --all over http is byte-identical" diff -r "$WORK/dq-local" "$WORK/dq-remote"
"$ONNXQ" dequant hf://org/repo/zoo3-00001-of-00003.gguf --all --out-dir "$WORK/dq-split" -q
check "dequant --all of a remote split model is byte-identical" diff -r "$WORK/dq-local" "$WORK/dq-split"
"$ONNXQ" export "$TESTDATA/zoo.gguf" -o "$WORK/local.safetensors" -q
"$ONNXQ" export "$url/files/zoo.gguf" -o "$WORK/remote.safetensors" -q
check "export over http is byte-identical" cmp "$WORK/local.safetensors" "$WORK/remote.safetensors"
"$ONNXQ" diff --json "$TESTDATA/zoo.gguf" "$url/files/zoo.gguf" >"$WORK/diff.json"
check "diff of a file against its URL finds no difference" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["only_in_a"] and not d["only_in_b"] and all(t["identical_bytes"] for t in d["tensors"]), d
assert len(d["tensors"]) == 38' "$WORK/diff.json"
check "hash over http equals local" diff <("$ONNXQ" hash "$TESTDATA/zoo.gguf" | sed "s|$TESTDATA/zoo.gguf||") \
  <("$ONNXQ" hash "$url/files/zoo.gguf" | sed "s|$url/files/zoo.gguf||")

# A big-endian file (gguf_tool.py's independent conversion): remote blocks are byte-swapped too.
"$PYTHON" "$here/gguf_tool.py" big-endian "$TESTDATA/zoo.gguf" "$WORK/root/zoo-be.gguf" FUGG
"$ONNXQ" dequant "$url/files/zoo-be.gguf" --all --out-dir "$WORK/dq-be" -q
check "dequant --all of a remote big-endian file equals the little-endian one" diff -r "$WORK/dq-local" "$WORK/dq-be"
check "stats of a remote big-endian file equal the little-endian ones" same_json stats "$TESTDATA/zoo.gguf" "$url/files/zoo-be.gguf"
"$ONNXQ" diff --json "$url/files/zoo-be.gguf" "$url/files/zoo.gguf" >"$WORK/diff-be.json"
check "diff of the remote big- and little-endian files finds no difference" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert all(t["identical_bytes"] for t in d["tensors"]) and len(d["tensors"]) == 38, d' "$WORK/diff-be.json"
"$ONNXQ" dequant "$WORK/root/big.gguf" --tensor blk.17.ffn.weight -o "$WORK/local.npy" -q
mark_log plain
"$ONNXQ" dequant "$url/files/big.gguf" --tensor blk.17.ffn.weight -o "$WORK/remote.npy" -q
check "dequant of one tensor of the big model is byte-identical" cmp "$WORK/local.npy" "$WORK/remote.npy"

# --- transfer bounds ---
tensor_bytes=$("$ONNXQ" list --json "$WORK/root/big.gguf" --filter blk.17.ffn.weight |
  "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["bytes"])')
dq_bytes=$(log_sum plain sent /files/big.gguf)
dq_requests=$(log_sum plain count /files/big.gguf)
check "one-tensor dequant moves header + tensor + at most 2 MiB more" \
  test "$dq_bytes" -le $((big_header + tensor_bytes + (2 << 20))) -a "$dq_bytes" -ge "$tensor_bytes"
mark_log plain
"$ONNXQ" list "$url/files/big.gguf" >/dev/null
list_bytes=$(log_sum plain sent /files/big.gguf)
list_requests=$(log_sum plain count /files/big.gguf)
check "list moves at most the header + 1 MiB" test "$list_bytes" -le $((big_header + (1 << 20)))
echo "transfer: file $big_size bytes, header $big_header; list: $list_bytes bytes in $list_requests requests;" \
  "dequant --tensor blk.17.ffn.weight ($tensor_bytes bytes): $dq_bytes bytes in $dq_requests requests"

# --- Hugging Face token: sent to the endpoint, never after the redirect to another host ---
mark_log plain
expect_exit 3 "$ONNXQ" info hf://gated/repo/zoo.gguf
check "a gated repository without HF_TOKEN: 401 and a hint" grep -qx 'onnxq: error: hf://gated/repo/zoo.gguf (http://127.0.0.1:[0-9]*/gated/repo/resolve/main/zoo.gguf): HTTP 401 Unauthorized: access denied; for a gated or private Hugging Face repository set HF_TOKEN' "$WORK/err"
check "a 4xx is not retried" test "$(log_sum plain count /gated/)" -eq 1
mark_log plain
export HF_TOKEN=sekrit
check "with HF_TOKEN the gated file is read through the redirect" same_json list "$TESTDATA/zoo.gguf" hf://gated/repo/zoo.gguf
check "the token went to the endpoint and not to the other host" "$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
hub = [r for r in rows if r["path"].startswith("/gated/")]
cdn = [r for r in rows if r["path"].startswith("/cdn/")]
assert hub and cdn and all(r["auth"] for r in hub), rows
assert all(not r["auth"] and r["host"].startswith("localhost:") for r in cdn), cdn' "$WORK/plain.log"
mark_log plain
HF_ENDPOINT=http://127.0.0.1:9 "$ONNXQ" info "$url/files/zoo.gguf" >/dev/null
check "the token is not sent to a host other than HF_ENDPOINT's" \
  "$PYTHON" -c 'import json,sys; rows = [json.loads(l) for l in open(sys.argv[1])]; assert rows and not any(r["auth"] for r in rows if r["path"] == "/files/zoo.gguf")' "$WORK/plain.log"
unset HF_TOKEN

# --- faults: one line, exit 3, nothing left behind ---
fault() {  # fault NAME URL PATTERN [ONNXQ OPTIONS...]: dequant fails cleanly
  local name=$1 target=$2 pattern=$3
  shift 3
  rm -rf "$WORK/outdir" && mkdir "$WORK/outdir"
  expect_exit 3 "$ONNXQ" "$@" dequant "$target" --tensor blk.17.ffn.weight -o "$WORK/outdir/t.npy" -q &&
    test "$(wc -l <"$WORK/err")" -eq 1 && grep -qE "^onnxq: error: $pattern" "$WORK/err" &&
    test -z "$(ls -A "$WORK/outdir")" || { sed 's/^/  stderr: /' "$WORK/err" >&2; return 1; }
}
check "no Range support" fault norange "$url/norange/big.gguf" '.*: the server does not support range requests'
check "a body cut short" fault truncate "$url/truncate/big.gguf" '.*: transfer closed with [0-9]+ bytes remaining.*gave up after 4 attempts'
check "a Content-Range shorter than asked" fault shortrange "$url/shortrange/big.gguf" '.*: asked for bytes 0-262143, the server sent bytes 0-131071/'
mark_log plain
check "a file that changes between requests" fault changing "$url/changing/big.gguf" '.*: the file changed on the server while it was being read'
check "after a change no further request is made" test "$(log_sum plain count /changing/)" -eq 2
check "403" fault 403 "$url/status/403/big.gguf" '.*: HTTP 403 Forbidden: .*set HF_TOKEN$'
check "404" fault 404 "$url/status/404/big.gguf" '.*: HTTP 404 Not Found$'
check "416" fault 416 "$url/status/416/big.gguf" '.*: HTTP 416 Range Not Satisfiable'
mark_log plain
check "a 5xx is retried, then given up" fault 500 "$url/status/500/big.gguf" '.*: HTTP 500 Internal Server Error \(gave up after 4 attempts\)$'
check "a 5xx is tried 4 times" test "$(log_sum plain count /status/500/)" -eq 4
check "endless redirects stop" fault loop "$url/loop/big.gguf" '.*: Maximum \(8\) redirects followed'
free_port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check "connection refused" fault refused "http://127.0.0.1:$free_port/big.gguf" ".*: Failed to connect to 127.0.0.1 port $free_port"
check "DNS failure" fault dns "http://onnxq-test.invalid/big.gguf" '.*: Could not resolve host: onnxq-test.invalid$'
start=$(date +%s)
check "--timeout" fault stall "$url/stall/big.gguf" '.*: timed out: ' --timeout 1
export ONNXQ_TIMEOUT=1
check "ONNXQ_TIMEOUT" fault stall "$url/stall/big.gguf" '.*: timed out: '
unset ONNXQ_TIMEOUT
check "--timeout 0 is a usage error" expect_exit 1 "$ONNXQ" --timeout 0 info "$TESTDATA/zoo.gguf"
check "a malformed ONNXQ_TIMEOUT is a usage error" expect_exit 1 env ONNXQ_TIMEOUT=soon "$ONNXQ" info "$TESTDATA/zoo.gguf"
check "time-outs end in seconds, not minutes" test $(($(date +%s) - start)) -lt 20
check "hf:// needs OWNER/REPO/PATH" expect_exit 2 "$ONNXQ" info hf://org/zoo.gguf
mark_log plain
check "transient 503s are retried and the read succeeds" same_json list "$WORK/root/big.gguf" "$url/flaky/big.gguf"
check "each range was asked twice" test "$(log_sum plain count /flaky/)" -eq 8

# --- a redirect to another host name, and libcurl's proxy variables ---
check "a redirect is followed" same_json list "$TESTDATA/zoo.gguf" "$url/redirect/zoo.gguf"
mark_log plain
check "http_proxy is used" env http_proxy="$url" "$ONNXQ" list http://onnxq-proxy-test.invalid/files/zoo.gguf -q >/dev/null
check "the request went through the proxy" grep -q '"proxied": true' "$WORK/plain.log"

# --- HTTPS with a CA of the test's own, given as SSL_CERT_FILE or CURL_CA_BUNDLE ---
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/ca.key" -out "$WORK/ca.pem" -days 2 -subj "/CN=onnxq test CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$WORK/tls.key" -out "$WORK/tls.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$WORK/san.ext"
openssl x509 -req -in "$WORK/tls.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
  -extfile "$WORK/san.ext" -out "$WORK/tls.pem" 2>/dev/null
start_server tls --cert "$WORK/tls.pem" --key "$WORK/tls.key"
tls_url=https://127.0.0.1:$PORT
export SSL_CERT_FILE=$WORK/ca.pem
check "https with SSL_CERT_FILE" same_json list "$TESTDATA/zoo.gguf" "$tls_url/files/zoo.gguf"
unset SSL_CERT_FILE
check "https with CURL_CA_BUNDLE" env CURL_CA_BUNDLE="$WORK/ca.pem" "$ONNXQ" dequant "$tls_url/files/zoo.gguf" --tensor q4_k.weight -o "$WORK/tls.npy"
check "https decodes the same bytes" cmp "$WORK/tls.npy" "$WORK/dq-local/q4_k.weight.npy"
check "an unknown CA is refused" fault tls "$tls_url/files/big.gguf" '.*: SSL certificate problem'

finish
