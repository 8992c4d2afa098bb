#!/usr/bin/env bash
# onnxq stats on the zoo file against numpy on ggml's expected arrays, and scale health
# recomputed in Python from the raw blocks; thread counts agree; the text table has a row per tensor.
source "$(dirname "$0")/common.bash"
zoo=$TESTDATA/zoo.gguf

"$ONNXQ" stats --json "$zoo" >"$WORK/stats.json"
"$ONNXQ" stats --json --threads 1 "$zoo" >"$WORK/stats1.json"
"$ONNXQ" stats --json --threads 3 "$zoo" >"$WORK/stats3.json"
check "results do not depend on --threads" cmp -s "$WORK/stats1.json" "$WORK/stats3.json"

# A second file made here from the edge-case blocks (NaN/Inf/subnormal scales, extreme codes).
"$PYTHON" - "$(dirname "$0")" "$TESTDATA" "$WORK/edge.gguf" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1]); from gguf_tool import write_gguf
import numpy as np
ids = {"q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q8_0": 8, "q8_1": 9, "q2_k": 10, "q3_k": 11, "q4_k": 12,
       "q5_k": 13, "q6_k": 14, "q8_k": 15, "iq2_xxs": 16, "iq2_xs": 17, "iq3_xxs": 18, "iq1_s": 19, "iq4_nl": 20,
       "iq3_s": 21, "iq2_s": 22, "iq4_xs": 23, "iq1_m": 29, "tq1_0": 34, "tq2_0": 35, "mxfp4": 39, "nvfp4": 40,
       "q1_0": 41, "q2_0": 42}
blocks = f"{sys.argv[2]}/gguf/blocks"
tensors = []
for fmt, tid in ids.items():
    n = np.load(f"{blocks}/{fmt}.edge.f32.npy").size
    tensors.append([f"{fmt}.edge".encode(), (n,), tid, 0, open(f"{blocks}/{fmt}.edge.bin", "rb").read()])
write_gguf(sys.argv[3], [], tensors, 32)
PY
"$ONNXQ" stats --json "$WORK/edge.gguf" >"$WORK/edge.json"

check "stats match numpy and the raw scale fields" "$PYTHON" - "$TESTDATA" "$WORK" <<'PY'
import json, sys
import numpy as np
testdata, work = sys.argv[1], sys.argv[2]

def half_class(h):
    e, f = (h >> 10) & 31, h & 0x3FF
    return "nan" if e == 31 and f else "inf" if e == 31 else "sub" if e == 0 and f else ""

# (block bytes, [(kind, offset)]) from the spec's layout tables.
H = "half"
layouts = {"Q4_0": (18, [(H, 0)]), "Q4_1": (20, [(H, 0), (H, 2)]), "Q5_0": (22, [(H, 0)]),
           "Q5_1": (24, [(H, 0), (H, 2)]), "Q8_0": (34, [(H, 0)]), "Q8_1": (36, [(H, 0)]),
           "Q2_K": (84, [(H, 80), (H, 82)]), "Q3_K": (110, [(H, 108)]), "Q4_K": (144, [(H, 0), (H, 2)]),
           "Q5_K": (176, [(H, 0), (H, 2)]), "Q6_K": (210, [(H, 208)]), "Q8_K": (292, [("f32", 0)]),
           "IQ2_XXS": (66, [(H, 0)]), "IQ2_XS": (74, [(H, 0)]), "IQ3_XXS": (98, [(H, 0)]),
           "IQ1_S": (50, [(H, 0)]), "IQ4_NL": (18, [(H, 0)]), "IQ3_S": (110, [(H, 0)]),
           "IQ2_S": (82, [(H, 0)]), "IQ4_XS": (136, [(H, 0)]), "IQ1_M": (56, [("iq1m", 48)]),
           "TQ1_0": (54, [(H, 52)]), "TQ2_0": (66, [(H, 64)]), "MXFP4": (17, [("e8m0", 0)]),
           "NVFP4": (36, [("ue4m3", k) for k in range(4)]), "Q1_0": (18, [(H, 0)]), "Q2_0": (18, [(H, 0)])}

def classify(kind, b, o):
    if kind == H:
        return half_class(int.from_bytes(b[o:o + 2], "little"))
    if kind == "f32":
        u = int.from_bytes(b[o:o + 4], "little")
        e, f = (u >> 23) & 255, u & 0x7FFFFF
        return "nan" if e == 255 and f else "inf" if e == 255 else "sub" if e == 0 and f else ""
    if kind == "iq1m":
        w = [int.from_bytes(b[o + 2 * i:o + 2 * i + 2], "little") >> 12 for i in range(4)]
        return half_class(w[0] | w[1] << 4 | w[2] << 8 | w[3] << 12)
    if kind == "e8m0":
        return "sub" if b[o] <= 1 else ""
    x = b[o]
    return "sub" if x != 0x7F and ((x >> 3) & 15) == 0 and (x & 7) else ""

def check_file(stats_path, cases):
    got = {row["name"]: row for row in json.load(open(stats_path))}
    assert len(got) == len(cases), (len(got), len(cases))
    totals = {"nan": 0, "inf": 0, "sub": 0, "value_nan": 0, "value_inf": 0}
    for name, gguf_type, data, a in cases:
        g = got[name]
        a = a.astype(np.float64).ravel()
        fin = a[np.isfinite(a)]
        assert g["elements"] == a.size and g["type"] == gguf_type, g
        assert g["nan"] == int(np.isnan(a).sum()) and g["inf"] == int(np.isinf(a).sum()), g
        totals["value_nan"] += g["nan"]
        totals["value_inf"] += g["inf"]
        if fin.size == 0:
            assert g["min"] is None and g["mean"] is None, g
        else:
            assert g["zeros"] == int((fin == 0).sum()), (g, int((fin == 0).sum()))
            assert g["min"] == fin.min() and g["max"] == fin.max(), g
            scale = max(np.abs(fin).max(), 1e-300)
            assert np.isclose(g["mean"], fin.mean(), rtol=1e-12, atol=1e-12 * scale), (g, fin.mean())
            assert np.isclose(g["std"], fin.std(), rtol=1e-9, atol=1e-12 * scale), (g, fin.std())
        if gguf_type in layouts:
            size, fields = layouts[gguf_type]
            counts = {"nan": 0, "inf": 0, "sub": 0}
            for i in range(0, len(data), size):
                classes = {classify(k, data[i:i + size], o) for k, o in fields}
                for c in counts:
                    counts[c] += c in classes
            assert (g["scale_nan_blocks"], g["scale_inf_blocks"], g["scale_subnormal_blocks"]) == \
                (counts["nan"], counts["inf"], counts["sub"]), (name, g, counts)
            for c in counts:
                totals[c] += counts[c]
        else:
            assert g["scale_nan_blocks"] == g["scale_inf_blocks"] == g["scale_subnormal_blocks"] == 0
    return totals

manifest = json.load(open(f"{testdata}/manifest.json"))["files"]["zoo.gguf"]
raw = open(f"{testdata}/zoo.gguf", "rb").read()
zoo = [(t["name"], t["type"], raw[t["file_offset"]:t["file_offset"] + t["nbytes"]],
        np.load(f"{testdata}/gguf/{t['expected']}")) for t in manifest["tensors"]]
totals = check_file(f"{work}/stats.json", zoo)
assert totals["sub"] > 0, totals  # the zoo has a few subnormal scales; a test that saw none would prove little

blocks = f"{testdata}/gguf/blocks"
edge = [(f"{fmt.lower()}.edge", fmt, open(f"{blocks}/{fmt.lower()}.edge.bin", "rb").read(),
         np.load(f"{blocks}/{fmt.lower()}.edge.f32.npy")) for fmt in layouts]
totals = check_file(f"{work}/edge.json", edge)
assert all(totals[k] > 0 for k in ("nan", "sub", "value_nan", "value_inf")), totals  # edge cases really seen
PY

# Selection, and the text table.
"$ONNXQ" stats "$zoo" --tensor q4_0.weight --filter 'iq*' >"$WORK/table.txt"
check "text table: header and one row per chosen tensor" \
  bash -c "[ \$(wc -l <'$WORK/table.txt') -eq 11 ] && head -1 '$WORK/table.txt' | grep -q 'std' && grep -q '^q4_0.weight ' '$WORK/table.txt'"
check "unknown tensor is invalid input" expect_exit 2 "$ONNXQ" stats "$zoo" --tensor nope
check "bad --threads is a usage error" expect_exit 1 "$ONNXQ" stats "$zoo" --threads -2
# The default thread count (man page, ENVIRONMENT): OMP_NUM_THREADS when it is a positive number,
# else the CPUs this process may run on; --threads overrides both.
check "OMP_NUM_THREADS sets the default" bash -c "OMP_NUM_THREADS=3 '$ONNXQ' -vv stats '$zoo' 2>&1 >/dev/null | grep -q ' 3 threads'"
check "--threads overrides it" bash -c "OMP_NUM_THREADS=3 '$ONNXQ' -vv stats '$zoo' --threads 5 2>&1 >/dev/null | grep -q ' 5 threads'"
cpus=$(nproc)
check "a value that is not a number falls back to the CPUs ($cpus)" \
  bash -c "OMP_NUM_THREADS=lots '$ONNXQ' -vv stats '$zoo' 2>&1 >/dev/null | grep -q ' $cpus threads'"
check "and so does 0" bash -c "OMP_NUM_THREADS=0 '$ONNXQ' -vv stats '$zoo' 2>&1 >/dev/null | grep -q ' $cpus threads'"
finish
