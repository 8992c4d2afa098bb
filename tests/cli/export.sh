#!/usr/bin/env bash
# onnxq export: the safetensors file read back with json + numpy (an independent reader)
# against ggml's expected arrays; bf16/f16 rounding; shards + index; split GGUF input;
# `onnxq dequant` agrees when present; errors leave nothing behind.
source "$(dirname "$0")/common.bash"
zoo=$TESTDATA/zoo.gguf
here=$(dirname "$0")

"$ONNXQ" export "$zoo" -o "$WORK/m.safetensors"
"$ONNXQ" export "$zoo" -o "$WORK/b.safetensors" --dtype bf16
"$ONNXQ" export "$zoo" -o "$WORK/h.safetensors" --dtype f16 --filter 'q4_*'
mkdir -p "$WORK/shard" "$WORK/split"
"$ONNXQ" export "$zoo" -o "$WORK/shard/model.safetensors" --max-shard-size 10KB
"$PYTHON" "$here/gguf_tool.py" split "$zoo" "$WORK/split/zoo" 3
"$ONNXQ" export "$WORK/split/zoo-00002-of-00003.gguf" -o "$WORK/from_split.safetensors"

cat >"$WORK/reader.py" <<'PY'
import json, struct
import numpy as np
DT = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "F64": "<f8", "I8": "i1", "I16": "<i2", "I32": "<i4", "I64": "<i8"}
def read_safetensors(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 8 == 0, n
    text = raw[8:8 + n].decode("utf-8")
    assert text == text.rstrip(" ") + " " * (len(text) - len(text.rstrip(" ")))
    header = json.loads(text)
    meta = header.pop("__metadata__", {})
    data = raw[8 + n:]
    ends = []
    prev = 0
    for name, e in header.items():                     # in file order: sorted by offset, no holes
        b, end = e["data_offsets"]
        assert b == prev, (name, b, prev)
        prev = end
    assert prev == len(data), (prev, len(data))
    arrays = {name: np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], DT[e["dtype"]]).reshape(e["shape"])
              for name, e in header.items()}
    return header, meta, arrays
def bf16_round_f64(x):
    """float64 -> bfloat16 bits, rounded once to nearest even, computed exactly in float64:
    scale by the bf16 spacing at x's binade (8 significant bits; subnormal below 2^-126), round
    half to even (np.rint), scale back (exact), then the float32 holding it gives the top 16 bits."""
    x = np.asarray(x, np.float64)
    out = np.zeros(x.shape, np.uint16)
    finite = np.isfinite(x) & (x != 0)
    _, k = np.frexp(x[finite])                      # |x| = m 2^k, m in [0.5, 1)
    spacing = np.ldexp(1.0, np.maximum(k - 1, -126) - 7)
    r = np.rint(x[finite] / spacing) * spacing      # exact: a power-of-two scale and an integer
    with np.errstate(over="ignore"):
        f = r.astype(np.float32)                    # exact, or +-inf at and past 2^128
    out[finite] = (f.view(np.uint32) >> 16).astype(np.uint16)
    out[x == 0] = np.where(np.signbit(x[x == 0]), 0x8000, 0)
    out[np.isposinf(x)], out[np.isneginf(x)] = 0x7F80, 0xFF80
    out[np.isnan(x)] = 0x7FC0
    return out
def nan_as_one(bits):
    """bf16 bits with every NaN pattern replaced by 0x7FC0 (any NaN equals any NaN)."""
    b = np.asarray(bits, np.uint16).copy()
    b[(b & 0x7FFF) > 0x7F80] = 0x7FC0
    return b
def bf16_round(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r
PY

check "f32/default export equals ggml's arrays" "$PYTHON" - "$TESTDATA" "$WORK" <<'PY'
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[2]); from reader import read_safetensors
testdata, work = sys.argv[1:3]
m = json.load(open(f"{testdata}/manifest.json"))["files"]["zoo.gguf"]
header, meta, arrays = read_safetensors(f"{work}/m.safetensors")
assert list(header) == [t["name"] for t in m["tensors"]]
assert meta["general.name"] == "onnxq test zoo A" and meta["general.architecture"] == "onnxq-test", meta
assert meta["format"] == "pt" and all(k == "format" or k.startswith("general.") for k in meta), meta
natural = {"F16": "F16", "BF16": "BF16", "F32": "F32", "F64": "F64", "I8": "I8", "I16": "I16", "I32": "I32", "I64": "I64"}
for t in m["tensors"]:
    e, a = header[t["name"]], arrays[t["name"]]
    assert e["shape"] == t["onnx_shape"], (e, t)
    assert e["dtype"] == natural.get(t["type"], "F32"), (e, t["type"])
    exp = np.load(f"{testdata}/gguf/{t['expected']}")
    if e["dtype"] in ("I8", "I16", "I32", "I64", "F64"):
        native = np.load(f"{testdata}/gguf/{t['expected'].replace('.f32.npy', '.native.npy')}")
        assert np.array_equal(a, native.reshape(a.shape)), t["name"]
    elif e["dtype"] == "BF16":
        assert np.array_equal((a.astype(np.uint32) << 16).view(np.float32), exp.reshape(a.shape)), t["name"]
    else:
        got = a.astype(np.float32)
        assert np.array_equal(got.view(np.uint32), exp.reshape(a.shape).view(np.uint32)), t["name"]
PY

check "bf16 and f16 exports round ggml's float32 values to nearest even" "$PYTHON" - "$TESTDATA" "$WORK" <<'PY'
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[2]); from reader import read_safetensors, bf16_round, bf16_round_f64, nan_as_one
testdata, work = sys.argv[1:3]
m = {t["name"]: t for t in json.load(open(f"{testdata}/manifest.json"))["files"]["zoo.gguf"]["tensors"]}
header, _, arrays = read_safetensors(f"{work}/b.safetensors")
for name, e in header.items():
    exp = np.load(f"{testdata}/gguf/{m[name]['expected']}").reshape(e["shape"])
    if m[name]["type"] in ("I8", "I16", "I32", "I64"):
        assert e["dtype"] == m[name]["type"], e
        continue
    assert e["dtype"] == "BF16", (name, e)
    if m[name]["type"] == "F64":
        exp = np.load(f"{testdata}/gguf/{m[name]['expected'].replace('.f32.npy', '.native.npy')}").reshape(e["shape"])
        # float64 -> bfloat16 directly (no double rounding): the bits of the exact nearest-even bf16
        assert np.array_equal(nan_as_one(arrays[name]), nan_as_one(bf16_round_f64(exp))), name
        continue
    assert np.array_equal(arrays[name], bf16_round(exp)), name
header, _, arrays = read_safetensors(f"{work}/h.safetensors")
assert sorted(header) == ["q4_0.weight", "q4_1.weight", "q4_k.weight"], list(header)
for name, e in header.items():
    exp = np.load(f"{testdata}/gguf/{m[name]['expected']}").reshape(e["shape"])
    assert e["dtype"] == "F16" and np.array_equal(arrays[name].view(np.uint16), exp.astype(np.float16).view(np.uint16)), name
PY

check "shards and index follow the HF convention and hold the same tensors" "$PYTHON" - "$WORK" <<'PY'
import json, os, sys
import numpy as np
sys.path.insert(0, sys.argv[1]); from reader import read_safetensors
work = sys.argv[1]
_, _, whole = read_safetensors(f"{work}/m.safetensors")
index = json.load(open(f"{work}/shard/model.safetensors.index.json"))
files = sorted(set(index["weight_map"].values()))
n = len(files)
assert n > 2 and files == [f"model-{i:05d}-of-{n:05d}.safetensors" for i in range(1, n + 1)], files
assert sorted(os.listdir(f"{work}/shard")) == sorted(files + ["model.safetensors.index.json"])
assert set(index["weight_map"]) == set(whole)
total = 0
for f in files:
    header, meta, arrays = read_safetensors(f"{work}/shard/{f}")
    assert meta["general.name"] == "onnxq test zoo A"
    size = sum(e["data_offsets"][1] - e["data_offsets"][0] for e in header.values())
    assert size <= 10_000 or len(header) == 1, (f, size)
    total += size
    for name, a in arrays.items():
        assert index["weight_map"][name] == f and np.array_equal(a, whole[name]), name
assert index["metadata"]["total_size"] == total
PY
check "split GGUF input exports the same file" cmp -s "$WORK/m.safetensors" "$WORK/from_split.safetensors"

"$ONNXQ" dequant "$zoo" --tensor q5_k.weight -o "$WORK/q5k.npy"
check "export agrees with onnxq dequant" "$PYTHON" - "$WORK" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1]); from reader import read_safetensors
_, _, arrays = read_safetensors(f"{sys.argv[1]}/m.safetensors")
d = np.load(f"{sys.argv[1]}/q5k.npy")
assert np.array_equal(d.view(np.uint32), arrays["q5_k.weight"].view(np.uint32))
PY

# F64 -> BF16 on the values where rounding is hard: ties (to even, both ways), a value just past a
# tie that float32 would round onto it (double rounding gives the wrong answer), subnormals, the
# overflow boundary, signed zeros, infinities and NaN. Bits must equal the exact rounding.
check "f64 -> bf16 export rounds once, to nearest even, bit for bit" "$PYTHON" - "$here" "$WORK" "$ONNXQ" <<'PY'
import subprocess, sys
import numpy as np
sys.path.insert(0, sys.argv[1]); from gguf_tool import write_gguf
sys.path.insert(0, sys.argv[2]); from reader import read_safetensors, bf16_round_f64, nan_as_one
work, onnxq = sys.argv[2], sys.argv[3]
v = [1 + 2.0**-8, 1 + 3 * 2.0**-8, -(1 + 2.0**-8), 1 + 2.0**-8 + 2.0**-40, 1 + 2.0**-8 - 2.0**-40,
     2.0**-130 * 1.5, 2.0**-133, 2.0**-134, 2.0**-134 * 1.0000001, 2.0**-140, 3.3961e38, 3.3962e38,
     2.0**128 * (1 - 2.0**-9), 2.0**128 * (1 - 2.0**-9) * (1 - 2.0**-50), 1e300, -1e300, 0.0, -0.0,
     np.inf, -np.inf, np.nan, 5e-324, 1.0 / 3, -2.0 / 3]
x = np.array(v + [0.0] * (32 - len(v)), np.float64)
write_gguf(f"{work}/f64edge.gguf", [], [[b"edge.f64", (32,), 28, 0, x.tobytes()]], 32)
subprocess.run([onnxq, "export", f"{work}/f64edge.gguf", "-o", f"{work}/f64edge.safetensors", "--dtype", "bf16"], check=True)
_, _, arrays = read_safetensors(f"{work}/f64edge.safetensors")
got, want = nan_as_one(arrays["edge.f64"]), nan_as_one(bf16_round_f64(x))
bad = np.nonzero(got != want)[0]
assert bad.size == 0, [(x[i], hex(got[i]), hex(want[i])) for i in bad]
# The reference itself on the classic cases: ties to even, and no double rounding.
assert list(want[:5]) == [0x3F80, 0x3F82, 0xBF80, 0x3F81, 0x3F80], [hex(w) for w in want[:5]]
PY

# Bounded memory: a 64 MiB float32 export must not hold the tensor (the peak RSS over a tiny
# export is the input mapping plus one chunk buffer).
"$PYTHON" - "$here" "$WORK" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1]); from gguf_tool import write_gguf
n = 16 << 20
blocks = np.random.default_rng(1).integers(0, 256, size=(n // 32, 18), dtype="uint8")
blocks[:, 1] &= 0x3B  # finite, modest half scales
write_gguf(f"{sys.argv[2]}/big.gguf", [], [[b"big.q4_0", (4096, n // 4096), 2, 0, blocks.tobytes()]], 32)
PY
check "/usr/bin/time is installed (scripts/setup)" test -x /usr/bin/time
if [ -x /usr/bin/time ]; then
  small=$(/usr/bin/time -f %M "$ONNXQ" -q export "$zoo" -o "$WORK/small.safetensors" 2>&1 >/dev/null)
  big=$(/usr/bin/time -f %M "$ONNXQ" -q export "$WORK/big.gguf" -o "$WORK/big.safetensors" 2>&1 >/dev/null)
  size=$(stat -c %s "$WORK/big.safetensors")
  echo "peak RSS: tiny export ${small} KiB, 64 MiB export ${big} KiB"
  check "export streams with bounded memory" test "$size" -gt $((64 << 20)) -a $((big - small)) -lt $((32 << 10))
  rm -f "$WORK/big.safetensors"
fi

check "bad --dtype is a usage error" expect_exit 1 "$ONNXQ" export "$zoo" -o "$WORK/x.safetensors" --dtype f64
check "bad --max-shard-size is a usage error" expect_exit 1 "$ONNXQ" export "$zoo" -o "$WORK/x.safetensors" --max-shard-size lots
check "shards cannot go to stdout: a usage error" expect_exit 1 "$ONNXQ" export "$zoo" -o - --max-shard-size 1KB
check "missing output directory is an I/O error" expect_exit 3 "$ONNXQ" export "$zoo" -o "$WORK/none/x.safetensors"
check "no file left behind by failures" bash -c "! ls '$WORK' | grep -q '^x.safetensors'"
"$ONNXQ" export "$zoo" --filter 'f*' -o - | cat >"$WORK/stdout.safetensors"
check "stdout output is a valid file" "$PYTHON" - "$WORK" <<'PY'
import sys
sys.path.insert(0, sys.argv[1]); from reader import read_safetensors
h, _, _ = read_safetensors(f"{sys.argv[1]}/stdout.safetensors")
assert sorted(h) == ["f16.weight", "f32.weight", "f64.weight"], list(h)
PY
finish
