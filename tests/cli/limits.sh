#!/usr/bin/env bash
# ggml's limits on keys and tensor names: an empty key and a tensor name of 64 bytes or more are
# invalid input (exit 2, one line naming the record and the limit); 63 bytes is fine.
source "$(dirname "$0")/common.bash"

"$PYTHON" - "$WORK" <<'PY'
import struct, sys
work = sys.argv[1]

def gguf(key, name):
    s = lambda b: struct.pack("<Q", len(b)) + b
    out = b"GGUF" + struct.pack("<IQQ", 3, 1, 1)
    out += s(key) + struct.pack("<I", 4) + struct.pack("<I", 7)
    out += s(name) + struct.pack("<I", 1) + struct.pack("<Q", 4) + struct.pack("<IQ", 0, 0)
    out += b"\0" * (-len(out) % 32)
    return out + struct.pack("<4f", 1, 2, 3, 4)

open(f"{work}/empty-key.gguf", "wb").write(gguf(b"", b"t"))
open(f"{work}/name63.gguf", "wb").write(gguf(b"k", b"n" * 63))
open(f"{work}/name64.gguf", "wb").write(gguf(b"k", b"n" * 64))
PY

one_line() { test "$(wc -l <"$WORK/err")" = 1; }
for cmd in info meta list; do
  check "$cmd: empty key is exit 2" expect_exit 2 "$ONNXQ" "$cmd" "$WORK/empty-key.gguf"
  check "$cmd: empty key message" grep -q 'empty-key.gguf: offset 24: metadata key 0 is empty, expected at least 1 byte' "$WORK/err"
  check "$cmd: empty key, one line" one_line
  check "$cmd: 64-byte name is exit 2" expect_exit 2 "$ONNXQ" "$cmd" "$WORK/name64.gguf"
  check "$cmd: 64-byte name message" grep -q "name64.gguf: offset 41: tensor 0 name is 64 bytes long, more than ggml's limit of 63" "$WORK/err"
  check "$cmd: 64-byte name, one line" one_line
done
check "63-byte name is fine" test "$("$ONNXQ" list --json "$WORK/name63.gguf" | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)[0]["name"]))')" = 63
"$ONNXQ" dequant "$WORK/name63.gguf" --tensor "$(printf 'n%.0s' {1..63})" -o "$WORK/t.npy"
check "63-byte name decodes" "$PYTHON" -c 'import numpy as np,sys; assert np.load(sys.argv[1]).tolist() == [1, 2, 3, 4]' "$WORK/t.npy"
finish
