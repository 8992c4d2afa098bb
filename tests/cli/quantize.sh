#!/usr/bin/env bash
# onnxq quantize --raw: the packed bytes equal ggml's (testdata/quantize/), from .npy and raw float32
# input alike; `dequant --raw` reads them back; bad input is one line, exit 2 (3 for I/O), no output.
source "$(dirname "$0")/common.bash"
Q=$TESTDATA/quantize

# The common set's rows (32 x 256) as .npy in float32, float16 and float64, and its importance weights.
"$PYTHON" - "$Q" "$WORK" <<'PY'
import sys, numpy as np
q, work = sys.argv[1:]
x = np.fromfile(f"{q}/common.input.f32", dtype="<f4").reshape(-1, 256)
np.save(f"{work}/rows.npy", x)
np.save(f"{work}/rows64.npy", x.astype(np.float64))
np.save(f"{work}/rows3d.npy", x.reshape(4, 8, 256))
np.save(f"{work}/w.npy", np.fromfile(f"{q}/common.importance.f32", dtype="<f4"))
np.save(f"{work}/w_short.npy", np.ones(128, np.float32))
np.save(f"{work}/ints.npy", np.ones((2, 256), np.int32))
PY
bytes_of() { head -c "$2" "$1"; }  # the first N bytes: the expectation without importance
half=$(( $(stat -c %s "$Q/common.q4_k.bin") / 2 ))

check "q4_k from .npy equals ggml" bash -c \
  "'$ONNXQ' quantize --raw '$WORK/rows.npy' --packed-format gguf:q4_k -o '$WORK/q4k.bin' &&
   cmp '$WORK/q4k.bin' <(head -c $half '$Q/common.q4_k.bin')"
check "q4_k with --imatrix equals ggml's weighted bytes" bash -c \
  "'$ONNXQ' quantize --raw '$WORK/rows.npy' --packed-format q4_k --imatrix '$WORK/w.npy' -o '$WORK/q4kw.bin' &&
   cmp '$WORK/q4kw.bin' <(tail -c $half '$Q/common.q4_k.bin')"
check "raw float32 with --shape, 1 thread, equals the .npy result" bash -c \
  "'$ONNXQ' quantize --raw '$Q/common.input.f32' --shape 32,256 --packed-format gguf:q4_k --threads 1 -o '$WORK/q4k_raw.bin' &&
   cmp '$WORK/q4k_raw.bin' '$WORK/q4k.bin'"
check "a 3-D array quantizes its rows the same" bash -c \
  "'$ONNXQ' quantize --raw '$WORK/rows3d.npy' --packed-format gguf:q4_k -o '$WORK/q4k3.bin' && cmp '$WORK/q4k3.bin' '$WORK/q4k.bin'"
check "float64 input rounds to float32 first" bash -c \
  "'$ONNXQ' quantize --raw '$WORK/rows64.npy' --packed-format gguf:q4_k -o '$WORK/q4k64.bin' && cmp '$WORK/q4k64.bin' '$WORK/q4k.bin'"
q80=$(( $(stat -c %s "$Q/common.q8_0.bin") / 2 ))
check "q8_0 to standard output through a pipe" bash -c \
  "'$ONNXQ' quantize --raw '$WORK/rows.npy' --packed-format gguf:q8_0 | cmp - <(head -c $q80 '$Q/common.q8_0.bin')"
check "dequant --raw reads the output back" bash -c \
  "'$ONNXQ' dequant --raw '$WORK/q4k.bin' --packed-format gguf:q4_k --shape 32,256 -o '$WORK/back.npy' &&
   '$PYTHON' -c 'import numpy as np, sys; a = np.load(sys.argv[1]); x = np.load(sys.argv[2]);
assert a.shape == x.shape and np.abs(a - x).max() <= 0.1 * np.abs(x).max(), (a.shape, np.abs(a - x).max())' '$WORK/back.npy' '$WORK/rows.npy'"

# Refusals: one line (a usage error adds CLI11's pointer to --help), the documented exit code, no output file, an existing one intact.
refused() {  # refused CODE PATTERN ARGS...
  local code=$1 pattern=$2
  shift 2
  rm -f "$WORK/no.bin"
  expect_exit "$code" "$ONNXQ" quantize "$@" -o "$WORK/no.bin" && [ ! -e "$WORK/no.bin" ] &&
    [ "$(grep -vc '^Run with --help' "$WORK/err")" -eq 1 ] && grep -q -- "$pattern" "$WORK/err" ||
    { sed 's/^/  stderr: /' "$WORK/err" >&2; return 1; }
}
check "raw input without --shape" refused 2 "give its shape with --shape" --raw "$Q/common.input.f32" --packed-format gguf:q8_0
check "raw size that does not match --shape" refused 2 "needs 8448 values" --raw "$Q/common.input.f32" --shape 33,256 --packed-format gguf:q8_0
check "last dimension not a multiple of the block" refused 2 "not a multiple of 256" --raw "$Q/common.input.f32" --shape 64,128 --packed-format gguf:q4_k
check "--shape that disagrees with the .npy" refused 2 "the array's shape is \[32, 256\]" --raw "$WORK/rows.npy" --shape 16,512 --packed-format gguf:q8_0
check "a non-float array" refused 2 "i32 array" --raw "$WORK/ints.npy" --packed-format gguf:q8_0
check "an importance matrix of the wrong length" refused 2 "must be \[256\]" --raw "$WORK/rows.npy" --imatrix "$WORK/w_short.npy" --packed-format gguf:q4_k
check "a format that needs an importance matrix" refused 2 "IQ2_XXS needs an importance matrix" --raw "$WORK/rows.npy" --packed-format gguf:iq2_xxs
check "a missing input file" refused 3 "missing.npy" --raw "$WORK/missing.npy" --packed-format gguf:q8_0
check "an unknown format" refused 1 "must be one of the 27 block formats" --raw "$WORK/rows.npy" --packed-format gguf:q9_9
"$PYTHON" -c "import numpy as np; x = np.ones((3, 64), np.float32); x[2, 5] = np.nan; np.save('$WORK/nan.npy', x)"
check "a NaN names its row and column" refused 2 "row 2, column 5: the value is NaN" --raw "$WORK/nan.npy" --packed-format gguf:q8_0
echo keep >"$WORK/kept.bin"
check "a refused run leaves an existing output intact" bash -c \
  "! '$ONNXQ' quantize --raw '$WORK/nan.npy' --packed-format gguf:q8_0 -o '$WORK/kept.bin' 2>/dev/null && [ \"\$(cat '$WORK/kept.bin')\" = keep ]"
finish
