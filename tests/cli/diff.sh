#!/usr/bin/env bash
# onnxq diff on the zoo file and a copy changed in known ways (made here with an
# independent GGUF writer): dropped/added tensors, a type change, a shape change, edited
# float32 values and a flipped quantized byte; differences are checked with numpy.
source "$(dirname "$0")/common.bash"
zoo=$TESTDATA/zoo.gguf
here=$(dirname "$0")

"$PYTHON" - "$here" "$zoo" "$WORK/b.gguf" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1]); from gguf_tool import read_gguf, write_gguf
kvs, tensors, alignment = read_gguf(open(sys.argv[2], "rb").read())
by = {t[0]: t for t in tensors}
q8 = by[b"q8_0.weight"]
by[b"q4_0.weight"][2], by[b"q4_0.weight"][4] = 8, q8[4]               # Q4_0 -> Q8_0, same shape
by[b"q8_1.weight"][1] = (128, 6)                                       # shape change, same bytes
f32 = np.frombuffer(by[b"f32.weight"][4][:144 * 4], "<f4").copy()
f32[5] += 0.5; f32[77] -= 2.0                                          # two known value changes
by[b"f32.weight"][4] = f32.tobytes()
raw = bytearray(by[b"q5_0.weight"][4]); raw[30] ^= 0xFF                # a code byte of block 1
by[b"q5_0.weight"][4] = bytes(raw)
tensors = [t for t in tensors if t[0] != b"i8.weight"]
tensors.append([b"extra.f32", (4,), 0, 0, np.arange(4, dtype="<f4").tobytes()])
write_gguf(sys.argv[3], kvs, tensors, alignment)
PY

"$ONNXQ" diff --json "$zoo" "$WORK/b.gguf" >"$WORK/d.json"
check "diff facts agree with numpy" "$PYTHON" - "$TESTDATA" "$WORK/d.json" <<'PY'
import json, sys
import numpy as np
testdata = sys.argv[1]
d = json.load(open(sys.argv[2]))
exp = lambda n: np.load(f"{testdata}/gguf/expected/{n}.f32.npy").astype(np.float64).ravel()
assert d["only_in_a"] == ["i8.weight"] and d["only_in_b"] == ["extra.f32"], d
rows = {r["name"]: r for r in d["tensors"]}
assert len(rows) == 37
r = rows["q4_0.weight"]
assert (r["type_a"], r["type_b"]) == ("Q4_0", "Q8_0") and r["compared"], r
delta = exp("q4_0.weight") - exp("q8_0.weight")
assert r["differing"] == int((delta != 0).sum()) and r["max_abs"] == np.abs(delta).max(), r
assert np.isclose(r["rms"], np.sqrt((delta ** 2).mean()), rtol=1e-12), r
r = rows["q8_1.weight"]
assert r["shape_a"] == [3, 256] and r["shape_b"] == [6, 128] and not r["compared"], r
r = rows["f32.weight"]
a32 = np.load(f"{testdata}/gguf/expected/f32.weight.f32.npy").ravel()
b32 = a32.copy(); b32[5] += np.float32(0.5); b32[77] -= np.float32(2.0)  # as the edit above, in float32
delta = b32.astype(np.float64) - a32.astype(np.float64)
assert r["differing"] == 2 and r["max_abs"] == np.abs(delta).max(), r
assert np.isclose(r["rms"], np.sqrt((delta ** 2).mean()), rtol=1e-12), r
r = rows["q5_0.weight"]
assert 0 < r["differing"] <= 2 and r["max_abs"] > 0 and not r["identical_bytes"], r  # one byte holds two codes
for name, r in rows.items():
    if name not in ("q4_0.weight", "q8_1.weight", "f32.weight", "q5_0.weight"):
        assert r["identical_bytes"] and r["differing"] == 0 and r["max_abs"] == 0, r
PY

"$ONNXQ" diff "$zoo" "$WORK/b.gguf" >"$WORK/d.txt"
check "text: only-in lines, type and shape changes, summary" bash -c "
  grep -q '^only in A: i8.weight\$' '$WORK/d.txt' && grep -q '^only in B: extra.f32\$' '$WORK/d.txt' &&
  grep -q 'Q4_0 -> Q8_0' '$WORK/d.txt' && grep -q '\[3, 256\] -> \[6, 128\]' '$WORK/d.txt' &&
  grep -q '^37 tensors in both (4 changed), 1 only in A, 1 only in B\$' '$WORK/d.txt'"
"$ONNXQ" diff --json "$zoo" "$zoo" --filter 'q*' >"$WORK/same.json"
check "a file equals itself" "$PYTHON" -c "
import json, sys; d = json.load(open('$WORK/same.json'))
assert not d['only_in_a'] and not d['only_in_b'] and len(d['tensors']) == 14
assert all(r['identical_bytes'] and r['differing'] == 0 for r in d['tensors'])"
check "missing file is an I/O error" expect_exit 3 "$ONNXQ" diff "$zoo" "$WORK/none.gguf"
finish
