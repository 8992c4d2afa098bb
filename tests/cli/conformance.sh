# onnxq conformance / run / make-case, run as a user would.
source "$(dirname "$0")/common.bash"

cases_dir=$TESTDATA/onnx-node
n_cases=$(find "$cases_dir" -name model.onnx | wc -l)

# --- every shipped case passes, bit-exactly ---
all_pass() {
  "$ONNXQ" conformance "$cases_dir" >"$WORK/all.txt" 2>"$WORK/all.err" || return 1
  [ "$(grep -c '^PASS ' "$WORK/all.txt")" -eq "$n_cases" ] || return 1
  [ "$(tail -n 1 "$WORK/all.txt")" = "$n_cases passed, 0 failed, 0 skipped" ] || return 1
  [ "$(wc -l <"$WORK/all.txt")" -eq $((n_cases + 1)) ]
}
check "every case in testdata/onnx-node passes ($n_cases cases)" all_pass
[ "$n_cases" -ge 50 ] || { echo "FAIL: only $n_cases cases found" >&2; fails=$((fails + 1)); }
check "every listed case appears by name" "$PYTHON" -c '
import json, sys
index = json.load(open(sys.argv[1]))
lines = set(open(sys.argv[2]).read().split("\n"))
missing = [e["case"] for e in index if "PASS " + e["case"] not in lines]
sys.exit(1 if missing or len(index) < 50 else 0)' "$cases_dir/index.json" "$WORK/all.txt"

# --- --json: the same facts for scripts ---
json_report() {
  "$ONNXQ" conformance "$cases_dir" --json >"$WORK/report.json" || return 1
  "$PYTHON" - "$WORK/report.json" "$n_cases" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert (r["passed"], r["failed"], r["skipped"]) == (n, 0, 0), r
assert len(r["cases"]) == n
for c in r["cases"]:
    assert c["status"] == "PASS" and c["reason"] == "" and c["data_sets"][0]["name"] == "test_data_set_0", c
ops = {c["op_type"]: c["opset"] for c in r["cases"]}
assert ops == {"DequantizePacked": 29, "Unpack": 29, "OneHot": 9, "Unsqueeze": 23}, ops
EOF
}
check "--json prints only a JSON report" json_report
json_file() {
  "$ONNXQ" conformance "$cases_dir" --filter 'test_onehot_*' --json-out "$WORK/r.json" >"$WORK/out.txt" || return 1
  [ "$(tail -n 1 "$WORK/out.txt")" = "5 passed, 0 failed, 0 skipped" ] || return 1
  [ "$(wc -l <"$WORK/out.txt")" -eq 6 ] || return 1
  "$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["passed"]==5 and len(r["cases"])==5 else 1)' "$WORK/r.json"
}
check "--json-out FILE writes the report beside the text" json_file
json_both() {
  "$ONNXQ" conformance "$cases_dir" --filter 'test_onehot_*' --json --json-out "$WORK/both.json" >"$WORK/both.out" || return 1
  cmp -s "$WORK/both.out" "$WORK/both.json" || return 1
  "$ONNXQ" conformance "$cases_dir" --filter 'test_onehot_*' --json-out - >"$WORK/dash.out" || return 1
  # Same report both ways; only the timings differ between runs.
  "$PYTHON" - "$WORK/both.json" "$WORK/dash.out" <<'EOF'
import json, sys
def load(p):
    r = json.load(open(p))
    for c in r["cases"]:
        del c["seconds"]
    return r
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a == b and a["passed"] == 5, (a, b)
EOF
}
check "--json with --json-out FILE: the same report on stdout and in FILE; --json-out - is --json" json_both
check "--json takes no value" expect_exit 3 "$ONNXQ" conformance "$cases_dir" --json "$WORK/not-a-case-folder.json"

# --- --filter ---
filter_unpack() {
  "$ONNXQ" conformance "$cases_dir" --filter 'test_unpack_*' >"$WORK/f.txt" || return 1
  local want
  want=$(find "$cases_dir" -maxdepth 1 -name 'test_unpack_*' -type d | wc -l)
  [ "$(grep -c '^PASS test_unpack_' "$WORK/f.txt")" -eq "$want" ] && [ "$(wc -l <"$WORK/f.txt")" -eq $((want + 1)) ]
}
check "--filter selects cases by glob" filter_unpack
check "a filter matching nothing reports zero" bash -c \
  '[ "$("$0" conformance "$1" --filter nothing-matches 2>/dev/null)" = "0 passed, 0 failed, 0 skipped" ]' "$ONNXQ" "$cases_dir"

# --- a deliberately broken copy: wrong value, garbage model, unknown op ---
broken=$WORK/broken
mkdir -p "$broken/sub"
cp -r "$cases_dir/test_unpack_3bit" "$cases_dir/test_unsqueeze_axis_0" "$broken/"
cp -r "$cases_dir/test_onehot_with_axis" "$broken/sub/"
cp -r "$cases_dir/test_unpack_ternary" "$broken/sub/test_garbage_model"
# Expected output [0..7]: raw_data is the last field, so the last byte is element 7; make it 6.
"$PYTHON" - "$broken/test_unpack_3bit/test_data_set_0/output_0.pb" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
assert b[-1] == 7
b[-1] = 6
open(p, "wb").write(bytes(b))
EOF
printf '\x0f\xff' >"$broken/sub/test_garbage_model/model.onnx"
"$PYTHON" - "$broken/test_unsqueeze_axis_0/model.onnx" <<'EOF'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
assert b.count(b"Unsqueeze") == 1
open(p, "wb").write(b.replace(b"Unsqueeze", b"Unsqueezz"))
EOF
broken_report() {
  expect_exit 2 "$ONNXQ" conformance "$broken" || return 1
  cp "$WORK/out" "$WORK/broken.txt"
  diff -u - "$WORK/broken.txt" <<'EOF'
FAIL test_garbage_model: model.onnx: not a valid serialized ONNX ModelProto
PASS test_onehot_with_axis
FAIL test_unpack_3bit: output 0 element [7] expected 6 got 7
SKIP test_unsqueeze_axis_0: op Unsqueezz not supported
1 passed, 2 failed, 1 skipped
EOF
}
check "broken copy: FAIL/SKIP lines with reasons, exit 2" broken_report
# An op name that is not UTF-8 still gives a report line and valid JSON.
mkdir -p "$WORK/latin1"
cp -r "$cases_dir/test_unsqueeze_axis_1" "$WORK/latin1/"
"$PYTHON" - "$WORK/latin1/test_unsqueeze_axis_1/model.onnx" <<'EOF'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
open(p, "wb").write(b.replace(b"Unsqueeze", b"Unsqueez\xff"))
EOF
check "a non-UTF-8 op name is a SKIP, also in --json" bash -c \
  '"$0" conformance "$1" --json | "$2" -c "import json,sys; r=json.load(sys.stdin); sys.exit(0 if r[\"skipped\"]==1 else 1)"' \
  "$ONNXQ" "$WORK/latin1" "$PYTHON"
# Control characters in a case name or a reason are escaped: every case stays on one line.
ctl_case=$WORK/ctl/test_tab$'\t'name
mkdir -p "$WORK/ctl"
cp -r "$cases_dir/test_unsqueeze_axis_1" "$ctl_case"
mv "$ctl_case/test_data_set_0" "$ctl_case/test_data_set_"$'\n'"0"
printf '\x0f\xff' >"$ctl_case/test_data_set_"$'\n'"0/input_0.pb"
escaped_report() {
  expect_exit 2 "$ONNXQ" conformance "$WORK/ctl" || return 1
  diff -u - "$WORK/out" <<'EOF'
FAIL test_tab\tname: test_data_set_\n0/input_0.pb: not a valid serialized TensorProto
0 passed, 1 failed, 0 skipped
EOF
}
check "control characters in names and reasons are escaped onto one line" escaped_report
check "only passes and skips: exit 0" expect_exit 0 "$ONNXQ" conformance "$broken/test_unsqueeze_axis_0" "$broken/sub/test_onehot_with_axis"
check "a tolerance does not hide an integer difference" expect_exit 2 "$ONNXQ" conformance "$broken/test_unpack_3bit" --rtol 1 --atol 1
check "a missing PATH is an I/O error" expect_exit 3 "$ONNXQ" conformance "$WORK/no-such-dir"
check "a folder without cases is an error" expect_exit 2 "$ONNXQ" conformance "$WORK/broken/sub/test_onehot_with_axis/test_data_set_0"
check "a negative tolerance is refused" expect_exit 2 "$ONNXQ" conformance "$cases_dir" --rtol -1
check "an unknown option is a usage error" expect_exit 1 "$ONNXQ" conformance "$cases_dir" --bogus
check "PATH is required" expect_exit 1 "$ONNXQ" conformance

# --- make-case -> conformance round trip, and run ---
"$PYTHON" - "$WORK" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
np.save(f"{w}/x3.npy", np.array([0x88, 0xC6, 0xFA], dtype=np.uint8))
np.save(f"{w}/count8.npy", np.array(8, dtype=np.int64))
np.save(f"{w}/idx.npy", np.array([[1, -1], [0, 7]], dtype=np.int64))
np.save(f"{w}/depth.npy", np.array(3, dtype=np.int64))
np.save(f"{w}/vals.npy", np.array([-1.5, 2.5], dtype=np.float32))
np.save(f"{w}/data.npy", np.arange(6, dtype=np.int16).reshape(2, 3))
np.save(f"{w}/axes.npy", np.array([-1, 0], dtype=np.int64))
# One q8_0 block: float16 scale 0.25, codes -16..15.
q = np.arange(-16, 16, dtype=np.int8)
np.save(f"{w}/q8.npy", np.frombuffer(np.float16(0.25).tobytes() + q.tobytes(), dtype=np.uint8))
EOF
mc=$WORK/made
make_cases() {
  "$ONNXQ" make-case --op Unpack --attr bits=3 -i "$WORK/x3.npy" -i "$WORK/count8.npy" -o "$mc/unpack3" >/dev/null &&
    "$ONNXQ" make-case --op Unpack --attr bits=3 -i "$WORK/x3.npy" -i "$WORK/count8.npy" -o "$mc/unpack3_typed" --typed-fields >/dev/null &&
    "$ONNXQ" make-case --op OneHot --attr axis=0 -i "$WORK/idx.npy" -i "$WORK/depth.npy" -i "$WORK/vals.npy" -o "$mc/onehot9" >/dev/null &&
    "$ONNXQ" make-case --op OneHot --opset 11 -i "$WORK/idx.npy" -i "$WORK/depth.npy" -i "$WORK/vals.npy" -o "$mc/onehot11" >/dev/null &&
    "$ONNXQ" make-case --op Unsqueeze -i "$WORK/data.npy" -i "$WORK/axes.npy" -o "$mc/unsqueeze23" >/dev/null &&
    "$ONNXQ" make-case --op DequantizePacked --attr format=gguf:q8_0 --attr shape=1,32 --attr output_dtype=float16 \
      -i "$WORK/q8.npy" -o "$mc/dq_q8_0_f16" >/dev/null
}
check "make-case writes cases for all four operators" make_cases
round_trip() {
  "$ONNXQ" conformance "$mc" --json-out "$WORK/made.json" >"$WORK/made.txt" || return 1
  [ "$(tail -n 1 "$WORK/made.txt")" = "6 passed, 0 failed, 0 skipped" ] || return 1
  "$PYTHON" - "$WORK/made.json" <<'EOF'
import json, sys
r = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
assert r["onehot9"]["opset"] == 9 and r["onehot11"]["opset"] == 11, r
assert r["unpack3"]["opset"] == 29 and r["unsqueeze23"]["opset"] == 23 and r["dq_q8_0_f16"]["opset"] == 29
EOF
}
check "make-case output passes conformance with the right opsets" round_trip
check "--typed-fields writes different .pb bytes than raw_data" bash -c \
  '! cmp -s "$1/unpack3/test_data_set_0/input_0.pb" "$1/unpack3_typed/test_data_set_0/input_0.pb"' _ "$mc"
check "make-case refuses an unknown op" expect_exit 1 "$ONNXQ" make-case --op Nope -i "$WORK/x3.npy" -o "$WORK/nope"
check "make-case refuses a wrong input count" expect_exit 1 "$ONNXQ" make-case --op Unpack --attr bits=3 -i "$WORK/x3.npy" -o "$WORK/nope"
check "make-case refuses an unknown attribute" expect_exit 1 "$ONNXQ" make-case --op Unpack --attr bitz=3 \
  -i "$WORK/x3.npy" -i "$WORK/count8.npy" -o "$WORK/nope"
check "make-case reports an operator error" expect_exit 2 "$ONNXQ" make-case --op Unpack --attr bits=9 \
  -i "$WORK/x3.npy" -i "$WORK/count8.npy" -o "$WORK/nope"
check "a failed make-case leaves no case behind" test ! -e "$WORK/nope/model.onnx"

# run: outputs as .npy, checked against values computed here with numpy.
run_outputs() {
  "$ONNXQ" run "$mc/unpack3/model.onnx" --input X="$WORK/x3.npy" --input count="$WORK/count8.npy" -o "$WORK/run1" >/dev/null &&
    "$ONNXQ" run "$mc/onehot9/model.onnx" -i "$WORK/idx.npy" -i "$WORK/depth.npy" -i "$WORK/vals.npy" -o "$WORK/run2" >/dev/null &&
    "$ONNXQ" run "$mc/onehot11/model.onnx" -i "$WORK/idx.npy" -i "$WORK/depth.npy" -i "$WORK/vals.npy" -o "$WORK/run3" >/dev/null &&
    "$ONNXQ" run "$mc/dq_q8_0_f16/model.onnx" -i x="$WORK/q8.npy" -o "$WORK/run4" >/dev/null &&
    "$ONNXQ" run "$mc/unsqueeze23/model.onnx" -i axes="$WORK/axes.npy" -i data="$WORK/data.npy" -o "$WORK/run5" >/dev/null || return 1
  "$PYTHON" - "$WORK" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
y = np.load(f"{w}/run1/Y.npy")
assert y.dtype == np.uint8 and (y == np.arange(8)).all(), y
idx = np.load(f"{w}/idx.npy"); off, on = np.load(f"{w}/vals.npy")
def onehot(wrap):
    out = np.full((3,) + idx.shape, off, dtype=np.float32)   # axis=0 for v9 case
    for pos, i in np.ndenumerate(idx):
        j = i + 3 if (wrap and i < 0) else i
        if 0 <= j < 3: out[(j,) + pos] = on
    return out
v9 = np.load(f"{w}/run2/output.npy")
assert v9.dtype == np.float32 and (v9 == onehot(False)).all(), v9
v11 = np.load(f"{w}/run3/output.npy")   # default axis -1
assert (v11 == np.moveaxis(onehot(True), 0, -1)).all(), v11
dq = np.load(f"{w}/run4/y.npy")
assert dq.dtype == np.float16 and dq.shape == (1, 32)
assert (dq == (np.float32(0.25) * np.arange(-16, 16, dtype=np.float32)).astype(np.float16).reshape(1, 32)).all(), dq
u = np.load(f"{w}/run5/expanded.npy")
assert u.shape == (1, 2, 3, 1) and (u.reshape(2, 3) == np.arange(6).reshape(2, 3)).all() and u.dtype == np.int16
EOF
}
check "run writes outputs that match numpy" run_outputs
run_pb() {
  local c=$cases_dir/test_unpack_ternary/test_data_set_0
  "$ONNXQ" run "$cases_dir/test_unpack_ternary/model.onnx" -i X="$c/input_0.pb" -i count="$c/input_1.pb" -o "$WORK/runpb" --pb >/dev/null &&
    cmp "$WORK/runpb/Y.pb" "$c/output_0.pb"
}
check "run with .pb inputs and --pb reproduces the expected output file" run_pb
check "run -o - writes the one output to a pipe" bash -c \
  '"$0" run "$1/unpack3/model.onnx" -i "$2/x3.npy" -i "$2/count8.npy" -o - | "$3" -c "import sys,numpy as np,io; y=np.load(io.BytesIO(sys.stdin.buffer.read())); sys.exit(0 if list(y)==list(range(8)) else 1)"' \
  "$ONNXQ" "$mc" "$WORK" "$PYTHON"
check "run refuses an unknown input name" expect_exit 1 "$ONNXQ" run "$mc/unpack3/model.onnx" -i nope="$WORK/x3.npy"
check "run needs every input" expect_exit 1 "$ONNXQ" run "$mc/unpack3/model.onnx" -i X="$WORK/x3.npy"
check "run reports a wrong input dtype" expect_exit 2 "$ONNXQ" run "$mc/unpack3/model.onnx" -i "$WORK/data.npy" -i "$WORK/count8.npy" -o "$WORK/r"
check "run reports a garbage model" expect_exit 2 "$ONNXQ" run "$broken/sub/test_garbage_model/model.onnx" -i "$WORK/x3.npy"

# scripts/conformance uses $ONNXQ.
check "scripts/conformance runs the shipped cases" bash -c \
  'ONNXQ="$0" "$1/scripts/conformance" --filter "test_unsqueeze_*" | tail -n 1 | grep -qx "8 passed, 0 failed, 0 skipped"' \
  "$ONNXQ" "$(cd "$(dirname "$0")/../.." && pwd)"

finish
