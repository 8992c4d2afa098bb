#!/usr/bin/env bash
# onnxq dequant, run as a user would: .npy files read back by numpy and compared bit for bit
# with ggml's expectations; raw mode (DequantizePacked itself); stdout; the terminal refusal;
# nothing left behind after an error.
source "$(dirname "$0")/common.bash"

ZOO=$TESTDATA/zoo.gguf
EXP=$TESTDATA/gguf/expected
BLK=$TESTDATA/gguf/blocks

# same_f32 GOT.npy WANT.npy: same shape, float32, same bits (NaN by position).
same_f32() {
  "$PYTHON" - "$1" "$2" <<'PY'
import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
assert got.dtype == np.float32 and got.shape == want.shape, (got.dtype, got.shape, want.shape)
g, w = got.view(np.uint32), want.view(np.uint32)
ok = (g == w) | (np.isnan(got) & np.isnan(want))
assert ok.all(), f"{(~ok).sum()} elements differ"
PY
}

# One tensor, default name in the current directory.
one_tensor() {
  (cd "$WORK" && "$ONNXQ" dequant "$ZOO" --tensor q4_k.weight) && same_f32 "$WORK/q4_k.weight.npy" "$EXP/q4_k.weight.f32.npy"
}
check "one tensor to ./NAME.npy" one_tensor

# Every tensor of the zoo into a directory: each equals ggml's float32 (plain integers: their own dtype).
all_tensors() {
  "$ONNXQ" dequant "$ZOO" --all --out-dir "$WORK/all" --threads 2 || return 1
  "$PYTHON" - "$WORK/all" "$EXP" <<'PY'
import sys, os, numpy as np
out, exp = sys.argv[1], sys.argv[2]
names = sorted(f[:-8] for f in os.listdir(exp) if f.endswith(".f32.npy"))
assert len(names) == 38, len(names)
assert sorted(os.listdir(out)) == sorted(n + ".npy" for n in names), os.listdir(out)
for n in names:
    got = np.load(os.path.join(out, n + ".npy"))
    native = os.path.join(exp, n + ".native.npy")
    if os.path.exists(native) and np.load(native).dtype.kind == "i":
        want = np.load(native)
        assert got.dtype == want.dtype and got.shape == want.shape and (got == want).all(), n
        continue
    want = np.load(os.path.join(exp, n + ".f32.npy"))
    assert got.dtype == np.float32 and got.shape == want.shape, (n, got.dtype, got.shape, want.shape)
    ok = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), n
PY
}
check "--all into --out-dir, every tensor bit-exact" all_tensors

# Several named tensors, -o DIR/ (a directory: it ends in /); f16/f64 output checked against numpy's own conversion.
several_dtypes() {
  "$ONNXQ" dequant "$ZOO" --tensor iq2_xs.weight --tensor cube_3d.q4_k -o "$WORK/f16/" --dtype f16 || return 1
  "$ONNXQ" dequant "$ZOO" --tensor mxfp4.weight -o "$WORK/mx64.npy" --dtype f64 || return 1
  "$PYTHON" - "$WORK" "$EXP" <<'PY'
import sys, numpy as np
w, exp = sys.argv[1], sys.argv[2]
for n in ("iq2_xs.weight", "cube_3d.q4_k"):
    got, want = np.load(f"{w}/f16/{n}.npy"), np.load(f"{exp}/{n}.f32.npy").astype(np.float16)
    assert got.dtype == np.float16 and got.shape == want.shape, n
    assert (got.view(np.uint16) == want.view(np.uint16)).all(), n
got, want = np.load(f"{w}/mx64.npy"), np.load(f"{exp}/mxfp4.weight.f32.npy").astype(np.float64)
assert got.dtype == np.float64 and (got == want).all()
assert np.load(f"{exp}/cube_3d.q4_k.f32.npy").shape == (3, 2, 256)
PY
}
check "-o DIR for several tensors, --dtype f16 and f64" several_dtypes

# bf16 .npy holds '<u2' bit patterns: RNE of the float32 expectation.
bf16_bits() {
  "$ONNXQ" dequant "$ZOO" --tensor q6_k.weight --dtype bf16 -o "$WORK/bf.npy" || return 1
  "$PYTHON" - "$WORK/bf.npy" "$EXP/q6_k.weight.f32.npy" <<'PY'
import sys, numpy as np
got, f = np.load(sys.argv[1]), np.load(sys.argv[2])
u = f.view(np.uint32).astype(np.uint64)
want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
assert got.dtype == np.uint16 and got.shape == f.shape and (got == want).all()
PY
}
check "--dtype bf16 writes <u2 bit patterns" bf16_bits

# Raw mode: the operator on the hard edge blocks, output raw float32 and .npy.
raw_mode() {
  "$ONNXQ" dequant --raw "$BLK/q3_k.edge.bin" --packed-format gguf:q3_k --shape 48,256 -o "$WORK/q3.npy" || return 1
  "$ONNXQ" dequant --raw "$BLK/nvfp4.edge.bin" --format gguf:nvfp4 --format raw --shape 48,64 -o "$WORK/nv.bin" || return 1
  "$PYTHON" - "$WORK" "$BLK" <<'PY'
import sys, numpy as np
w, blk = sys.argv[1], sys.argv[2]
def same(got, want):
    return ((got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))).all()
q3, want = np.load(f"{w}/q3.npy"), np.load(f"{blk}/q3_k.edge.f32.npy")
assert q3.shape == (48, 256) and same(q3.reshape(-1), want)
nv = np.fromfile(f"{w}/nv.bin", dtype="<f4")
assert same(nv, np.load(f"{blk}/nvfp4.edge.f32.npy"))
PY
}
check "--raw file with --packed-format / --format gguf:*" raw_mode

# Standard output: `-o -` into a pipe, and raw input from standard input.
stdout_pipe() {
  "$ONNXQ" dequant "$ZOO" --tensor q5_1.weight -o - | cat >"$WORK/piped.npy" || return 1
  same_f32 "$WORK/piped.npy" "$EXP/q5_1.weight.f32.npy" || return 1
  "$ONNXQ" dequant --raw - --packed-format gguf:q5_0 --shape 10,32 -o - <"$BLK/q5_0.bin" | cat >"$WORK/stdin.npy" || return 1
  "$PYTHON" -c "
import sys, numpy as np
got, want = np.load('$WORK/stdin.npy'), np.load('$BLK/q5_0.f32.npy')
assert got.shape == (10, 32) and (got.reshape(-1).view(np.uint32) == want.view(np.uint32)).all()"
}
check "-o - to a pipe, --raw - from stdin" stdout_pipe

# Binary output is refused on a terminal (needs a pty from `script`).
tty_refusal() {
  script -qec "'$ONNXQ' dequant '$ZOO' --tensor q4_0.weight -o -" /dev/null >"$WORK/tty.txt" 2>&1
  local rc=$?
  [ "$rc" -ne 0 ] && grep -q "refusing to write binary output to a terminal" "$WORK/tty.txt" &&
    ! grep -q NUMPY "$WORK/tty.txt"
}
check "refuses to write binary to a terminal" tty_refusal

# Errors leave nothing behind: unknown tensor (exit 2), bad length in raw mode (exit 2), usage (exit 1).
nothing_left() {
  mkdir -p "$WORK/clean" && touch "$WORK/clean/keep"
  expect_exit 2 "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight --tensor no.such.tensor --out-dir "$WORK/clean" || return 1
  grep -q "no tensor named 'no.such.tensor'" "$WORK/err" || return 1
  expect_exit 2 "$ONNXQ" dequant --raw "$BLK/q4_0.bin" --packed-format gguf:q4_0 --shape 11,32 -o "$WORK/clean/x.npy" || return 1
  grep -q "needs product(shape\[:-1\])" "$WORK/err" || return 1
  expect_exit 2 "$ONNXQ" dequant --raw "$BLK/q4_0.bin" --packed-format gguf:Q4_0 --shape 10,32 -o "$WORK/clean/x.npy" || return 1
  expect_exit 2 "$ONNXQ" dequant --raw "$BLK/q4_0.bin" --packed-format gguf:q4_0 --shape 10,33 -o "$WORK/clean/x.npy" || return 1
  expect_exit 1 "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight --dtype i8 -o "$WORK/clean/x.npy" || return 1
  expect_exit 1 "$ONNXQ" dequant "$ZOO" -o "$WORK/clean/x.npy" || return 1
  expect_exit 3 "$ONNXQ" dequant "$WORK/missing.gguf" --all --out-dir "$WORK/clean" || return 1
  [ "$(ls -A "$WORK/clean")" = "keep" ]
}
check "no file left behind after an error" nothing_left

# Empty tensors in raw mode give empty arrays.
empty_raw() {
  : >"$WORK/empty.bin"
  "$ONNXQ" dequant --raw "$WORK/empty.bin" --packed-format gguf:q2_0 --shape 2,0,64 -o "$WORK/empty.npy" || return 1
  "$PYTHON" -c "
import numpy as np; a = np.load('$WORK/empty.npy'); assert a.shape == (2, 0, 64) and a.dtype == np.float32"
}
check "empty raw tensor gives an empty array" empty_raw

# --threads is one shared definition: every command that takes it refuses a negative count the
# same way (usage error, same message) and shows the same help line.
threads_shared() {
  local first_err='' first_help='' help
  for cmd in "dequant $ZOO --all --out-dir $WORK/t" "stats $ZOO" "diff $ZOO $ZOO" "export $ZOO -o $WORK/t.safetensors"; do
    # shellcheck disable=SC2086
    expect_exit 1 "$ONNXQ" $cmd --threads -1 || return 1
    [ -n "$first_err" ] || first_err=$(cat "$WORK/err")
    [ "$(cat "$WORK/err")" = "$first_err" ] || { echo "different message: $cmd" >&2; return 1; }
    help=$("$ONNXQ" ${cmd%% *} --help | grep -- '^  --threads ')
    [ -n "$first_help" ] || first_help=$help
    [ "$help" = "$first_help" ] || { echo "different help: $cmd" >&2; return 1; }
  done
  [[ $first_err == *"--threads"* ]] && [ ! -e "$WORK/t" ] && [ ! -e "$WORK/t.safetensors" ]
}
check "dequant, stats, diff and export check --threads alike" threads_shared

finish
