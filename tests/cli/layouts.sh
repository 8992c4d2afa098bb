#!/usr/bin/env bash
# info / meta / list on big-endian and split GGUF files written here by an independent writer.
source "$(dirname "$0")/common.bash"

"$PYTHON" - "$WORK" <<'PY'
import struct, sys
work = sys.argv[1]

VALUES = (1.5, -2.0, 3.25, 1e-3, 65504.0)

def gguf(order, kvs, tensors, magic=b"GGUF"):
    """kvs: list of (key, type, payload bytes); tensors: list of (name, ne, type, nbytes).
    F32 tensors hold VALUES (repeated) in the file's byte order; other data is 0x11 bytes."""
    p = order
    def s(x):
        b = x.encode()
        return struct.pack(p + "Q", len(b)) + b
    out = magic + struct.pack(p + "IQQ", 3, len(tensors), len(kvs))
    for key, t, payload in kvs:
        out += s(key) + struct.pack(p + "I", t) + payload
    offset = 0
    for name, ne, t, nbytes in tensors:
        out += s(name) + struct.pack(p + "I", len(ne)) + b"".join(struct.pack(p + "Q", d) for d in ne)
        out += struct.pack(p + "IQ", t, offset)
        offset += (nbytes + 31) // 32 * 32
    out += b"\0" * (-len(out) % 32)
    for name, ne, t, nbytes in tensors:
        n = nbytes // 4
        data = struct.pack(order + f"{n}f", *(VALUES * n)[:n]) if t == 0 else b"\x11" * nbytes
        out += data + b"\0" * (-len(data) % 32)
    return out

def kv_set(p, shard, count):
    return [("general.name", 8, struct.pack(p + "Q", 5) + b"split"),
            ("split.no", 2, struct.pack(p + "H", shard)),
            ("split.count", 2, struct.pack(p + "H", count)),
            ("split.tensors.count", 5, struct.pack(p + "i", 3))]

for order, magic, name in ((">", b"GGUF", "be.gguf"), (">", b"FUGG", "fugg.gguf"), ("<", b"GGUF", "le.gguf")):
    kvs = [("general.architecture", 8, struct.pack(order + "Q", 4) + b"test"),
           ("test.u32", 4, struct.pack(order + "I", 123456789)),
           ("test.arr", 9, struct.pack(order + "IQ", 11, 2) + struct.pack(order + "qq", -7, 1 << 40))]
    open(f"{work}/{name}", "wb").write(gguf(order, kvs, [("w", [256, 2], 12, 288), ("v", [5], 0, 20)], magic))

shards = [[("a", [32], 8, 34)], [("b", [64, 2], 2, 72)], [("c", [4], 1, 8)]]
for i, ts in enumerate(shards):
    open(f"{work}/m-{i+1:05d}-of-00003.gguf", "wb").write(gguf("<", kv_set("<", i, 3), ts))
PY

for f in be fugg; do
  "$ONNXQ" info "$WORK/$f.gguf" >"$WORK/$f.info"
  check "$f: byte order reported" grep -q '^byte order: *big-endian' "$WORK/$f.info"
  "$ONNXQ" info "$WORK/le.gguf" >"$WORK/le.info"
  check "$f: same facts as the little-endian twin" \
    diff <(grep -v -e '^file:' -e '^byte order:' "$WORK/$f.info") <(grep -v -e '^file:' -e '^byte order:' "$WORK/le.info")
  check "$f: list matches" diff <("$ONNXQ" list --json "$WORK/$f.gguf") <("$ONNXQ" list --json "$WORK/le.gguf")
  check "$f: metadata values" test "$("$ONNXQ" meta "$WORK/$f.gguf" -k test.u32 -k test.arr)" = $'123456789\n-7\n1099511627776'
  "$ONNXQ" dequant "$WORK/$f.gguf" --tensor v -o "$WORK/$f.v.npy"
  check "$f: big-endian F32 data is byte-swapped" "$PYTHON" -c "import numpy as np,sys; a=np.load(sys.argv[1]); assert a.dtype==np.float32 and a.tolist()==[1.5,-2.0,3.25,np.float32(1e-3).item(),65504.0], a" "$WORK/$f.v.npy"
  "$ONNXQ" dequant "$WORK/$f.gguf" --tensor w -o "$WORK/$f.w.npy"
  "$ONNXQ" dequant "$WORK/le.gguf" --tensor w -o "$WORK/le.w.npy"
  check "$f: quantized blocks decode as in the little-endian twin" cmp "$WORK/$f.w.npy" "$WORK/le.w.npy"
  check "$f: stats agree with the little-endian twin" diff <("$ONNXQ" stats --all --json "$WORK/$f.gguf") <("$ONNXQ" stats --all --json "$WORK/le.gguf")
  "$ONNXQ" export "$WORK/$f.gguf" --dtype f32 -o "$WORK/$f.safetensors"
  "$ONNXQ" export "$WORK/le.gguf" --dtype f32 -o "$WORK/le.safetensors"
  check "$f: export agrees with the little-endian twin" cmp "$WORK/$f.safetensors" "$WORK/le.safetensors"
  check "$f: diff against the twin finds no value change" grep -q '"max_abs": 0' <("$ONNXQ" diff --json "$WORK/$f.gguf" "$WORK/le.gguf")
done
"$ONNXQ" dequant "$WORK/le.gguf" --tensor v -o "$WORK/le.v.npy"
check "le: F32 data" cmp "$WORK/le.v.npy" "$WORK/be.v.npy"

"$ONNXQ" info "$WORK/m-00002-of-00003.gguf" >"$WORK/split.info"
check "split: shards listed" grep -q '^shards: *3$' "$WORK/split.info"
check "split: all tensors counted" grep -q '^tensors: *3$' "$WORK/split.info"
"$ONNXQ" list "$WORK/m-00001-of-00003.gguf" >"$WORK/split.list"
check "split: list shows the shard column" grep -qE '^c +F16 +- +\[4\] +4 +8 +[0-9]+ +3$' "$WORK/split.list"
rm "$WORK/m-00003-of-00003.gguf"
check "split: missing shard is exit 3 where the whole model is needed" expect_exit 3 "$ONNXQ" stats "$WORK/m-00001-of-00003.gguf"
check "split: message names the shard" grep -q 'missing shard 3 of 3' "$WORK/err"
check "split: list of the shards present still works" expect_exit 0 "$ONNXQ" list "$WORK/m-00001-of-00003.gguf"
check "split: with a warning naming the shard" grep -q 'shards are missing: 3 (.*m-00003-of-00003.gguf)' "$WORK/err"
finish
