#!/usr/bin/env bash
# unpack / onehot / unsqueeze as a user scripts them: .npy or raw bytes in, .npy out, chained through
# pipes, with real numpy reading the result at the end. Exit codes and quiet broken pipes too.
source "$(dirname "$0")/common.bash"
ops=$TESTDATA/ops
# np.load needs a seekable file: read the pipe into memory first.
LOAD='import sys, io, numpy as np; a = np.load(io.BytesIO(sys.stdin.buffer.read()))'

# numpy's own unpacking, LSB first along the last axis, for comparison.
cat >"$WORK/ref.py" <<'PY'
import numpy as np
def unpack_bits(words, bits, count):
    b = np.unpackbits(words.view(np.uint8).reshape(words.shape[:-1] + (-1,)), axis=-1, bitorder="little")
    b = b[..., : count * bits].reshape(words.shape[:-1] + (count, bits)).astype(np.uint32)
    return (b << np.arange(bits, dtype=np.uint32)).sum(-1).astype(np.uint8)
PY

# The doc's example from raw bytes on stdin, count chosen by -v's rule.
check "raw stdin bits=3" bash -c "printf '\x88\xc6\xfa' | '$ONNXQ' unpack --bits 3 | '$PYTHON' -c '$LOAD
assert a.dtype == np.uint8 and a.tolist() == list(range(8)), a'"
check "-v says which count it chose" bash -c "printf '\x88\xc6\xfa' | '$ONNXQ' -v unpack --bits 3 2>&1 >/dev/null | grep -q 'using 8'"
check "ternary from raw bytes" bash -c "printf '\x66\xf2' | '$ONNXQ' unpack --radix 3 --group-size 5 --shape 2,1 --count 5 -o - | '$PYTHON' -c '$LOAD
assert a.tolist() == [[0, 1, 2, 0, 1], [2, 2, 2, 2, 2]], a'"

# Random words from numpy, every bits value, u8 and u32, to a file with -o; numpy's unpackbits agrees.
"$PYTHON" - "$WORK" <<'PY'
import numpy as np, sys
rng = np.random.default_rng(5)
np.save(f"{sys.argv[1]}/w8.npy", rng.integers(0, 256, size=(3, 45), dtype=np.uint8))
np.save(f"{sys.argv[1]}/w32.npy", rng.integers(0, 2**32, size=(2, 11), dtype=np.uint32))
# big-endian input: the reader swaps it
np.save(f"{sys.argv[1]}/w32be.npy", rng.integers(0, 2**32, size=(2, 11), dtype=np.uint32).astype(">u4"))
PY
for bits in 1 2 3 4 5 6 7 8; do
  for w in w8 w32 w32be; do
    words=45; [ "$w" = w8 ] || words=44
    count=$((words * 8 / bits))
    "$ONNXQ" unpack "$WORK/$w.npy" --bits $bits --count $count -o "$WORK/out_${w}_$bits.npy"
    check "unpack $w bits=$bits" "$PYTHON" -c "
import sys; sys.path.insert(0, '$WORK'); import numpy as np, ref
x = np.load('$WORK/$w.npy').astype(np.dtype(np.load('$WORK/$w.npy').dtype).newbyteorder('<'))
y = np.load('$WORK/out_${w}_$bits.npy')
assert y.dtype == np.uint8 and (y == ref.unpack_bits(x, $bits, $count)).all()"
  done
done
# Axis 0 of UINT32 words (the doc's _unpack_uint32_axis), negative axis spelled -2.
check "unpack --axis -2 of u32" bash -c "'$ONNXQ' unpack '$ops/test_unpack_uint32_axis/input_0.npy' --bits 5 --count 7 --axis -2 | '$PYTHON' -c '$LOAD
assert a.shape == (7, 2) and (a == 31).all(), a'"

# The pipeline of the issue: unpack | onehot, numpy's eye at the end.
check "unpack | onehot --depth 8" bash -c "'$ONNXQ' unpack '$WORK/w8.npy' --bits 3 --count 120 | '$ONNXQ' onehot --depth 8 | '$PYTHON' -c '
import sys; sys.path.insert(0, \"$WORK\"); import ref
$LOAD
codes = ref.unpack_bits(np.load(\"$WORK/w8.npy\"), 3, 120)
assert a.dtype == np.float32 and a.shape == (3, 120, 8)
assert (a == np.eye(8, dtype=np.float32)[codes]).all()'"
check "unpack | onehot --axis -2 --dtype i32 --values 2,5 | unsqueeze --axes 0,-1" bash -c "'$ONNXQ' unpack '$WORK/w8.npy' --bits 2 --count 180 | '$ONNXQ' onehot - --depth 4 --axis -2 --dtype i32 --values 2,5 | '$ONNXQ' unsqueeze --axes 0,-1 | '$PYTHON' -c '
import sys; sys.path.insert(0, \"$WORK\"); import ref
$LOAD
codes = ref.unpack_bits(np.load(\"$WORK/w8.npy\"), 2, 180)
want = np.where(np.eye(4, dtype=bool)[codes], 5, 2).astype(np.int32).transpose(0, 2, 1)[None, ..., None]
assert a.dtype == np.int32 and a.shape == (1, 3, 4, 180, 1) and (a == want).all(), a.shape'"

# OneHot options: version 9 negatives are off, --opset 11 counts them from the back; strings; bool.
"$PYTHON" -c "import numpy as np; np.save('$WORK/neg.npy', np.array([0, -1, 3, -4, 9], dtype=np.int64))"
check "onehot v9 negatives off" bash -c "'$ONNXQ' onehot '$WORK/neg.npy' --depth 4 --dtype u8 | '$PYTHON' -c '$LOAD
assert a.tolist() == [[1,0,0,0],[0,0,0,0],[0,0,0,1],[0,0,0,0],[0,0,0,0]], a'"
check "onehot --opset 11 negatives from the back" bash -c "'$ONNXQ' onehot '$WORK/neg.npy' --depth 4 --dtype u8 --opset 11 | '$PYTHON' -c '$LOAD
assert a.tolist() == [[1,0,0,0],[0,0,0,1],[0,0,0,1],[1,0,0,0],[0,0,0,0]], a'"
check "onehot --values -1,1 (a negative first value)" bash -c "'$ONNXQ' onehot '$WORK/neg.npy' --depth 2 --values -1,1 --dtype i8 --axis -2 | '$PYTHON' -c '$LOAD
assert a.dtype == np.int8 and a.shape == (2, 5) and a[:, 0].tolist() == [1, -1], a'"
check "onehot string values" bash -c "'$ONNXQ' onehot '$WORK/neg.npy' --depth 2 --dtype str --values no,yés | '$PYTHON' -c '$LOAD
assert a.dtype.kind == \"U\" and a[0].tolist() == [\"yés\", \"no\"] and a[1].tolist() == [\"no\", \"no\"], a'"
check "onehot bool / f16 / float32 indices" bash -c "'$PYTHON' -c 'import numpy as np; np.save(\"$WORK/fidx.npy\", np.array([1.9, -0.5, 2.0], dtype=np.float32))' &&
  '$ONNXQ' onehot '$WORK/fidx.npy' --depth 3 --dtype bool --values false,true | '$PYTHON' -c '$LOAD
assert a.dtype == np.bool_ and a.tolist() == [[False, True, False], [True, False, False], [False, False, True]], a' &&
  '$ONNXQ' onehot '$WORK/fidx.npy' --depth 3 --dtype float16 --values 0.5,-1 | '$PYTHON' -c '$LOAD
assert a.dtype == np.float16 and a[0].tolist() == [0.5, -1.0, 0.5], a'"
check "onehot conformance case" bash -c "'$ONNXQ' onehot '$ops/test_onehot_with_negative_axis/input_0.npy' --depth 10 --axis -2 --values 1,3 | '$PYTHON' -c '$LOAD
assert (a == np.load(\"$ops/test_onehot_with_negative_axis/output_0.npy\")).all()'"

# Unsqueeze keeps dtype and data; negative axes parse (also after '=').
check "unsqueeze --axes=-1 on strings" bash -c "'$PYTHON' -c 'import numpy as np; np.save(\"$WORK/s.npy\", np.array([[\"a\", \"bc\"]]))' &&
  '$ONNXQ' unsqueeze '$WORK/s.npy' --axes=-1 | '$PYTHON' -c '$LOAD
assert a.shape == (1, 2, 1) and a.ravel().tolist() == [\"a\", \"bc\"], a'"
check "unsqueeze conformance case" bash -c "cat '$ops/test_unsqueeze_unsorted_axes/input_0.npy' | '$ONNXQ' unsqueeze --axes 5,4,2 | '$PYTHON' -c '$LOAD
b = np.load(\"$ops/test_unsqueeze_unsorted_axes/output_0.npy\"); assert a.shape == b.shape and (a == b).all()'"

# dequant -o - | unsqueeze.
check "dequant | unsqueeze --axes 0" bash -c "'$ONNXQ' dequant '$TESTDATA/zoo.gguf' --tensor q4_0.weight -o - | '$ONNXQ' unsqueeze --axes 0 | '$PYTHON' -c '$LOAD
assert a.dtype == np.float32 and a.shape == (1, 3, 512), a.shape
assert np.isfinite(a).all() and a.std() > 0'"
check "dequant | unsqueeze equals dequant" bash -c "'$ONNXQ' dequant '$TESTDATA/zoo.gguf' --tensor q4_0.weight -o '$WORK/dq.npy' &&
  '$ONNXQ' dequant '$TESTDATA/zoo.gguf' --tensor q4_0.weight -o - | '$ONNXQ' unsqueeze --axes -1,0 -o '$WORK/dq4.npy' &&
  '$PYTHON' -c 'import numpy as np; a = np.load(\"$WORK/dq.npy\"); b = np.load(\"$WORK/dq4.npy\"); assert b.shape == (1,) + a.shape + (1,) and (b.ravel() == a.ravel()).all()'"

# Exit codes: 1 usage, 2 invalid input, 3 I/O.
check "bits and radix together: usage" expect_exit 1 "$ONNXQ" unpack "$WORK/w8.npy" --bits 3 --radix 3 --group-size 5
check "no mode: usage" expect_exit 1 "$ONNXQ" unpack "$WORK/w8.npy"
check "radix without group size: usage" expect_exit 1 "$ONNXQ" unpack "$WORK/w8.npy" --radix 3
check "bad --storage: usage" expect_exit 1 "$ONNXQ" unpack "$WORK/w8.npy" --bits 3 --storage i8
check "onehot without --depth: usage" expect_exit 1 "$ONNXQ" onehot "$WORK/neg.npy"
check "onehot bad dtype: usage" expect_exit 1 "$ONNXQ" onehot "$WORK/neg.npy" --depth 3 --dtype q4
check "onehot bad value: usage" expect_exit 1 "$ONNXQ" onehot "$WORK/neg.npy" --depth 3 --dtype u8 --values 0,256
check "onehot one value: usage" expect_exit 1 "$ONNXQ" onehot "$WORK/neg.npy" --depth 3 --values 1
check "wrong count: invalid input" expect_exit 2 "$ONNXQ" unpack "$WORK/w8.npy" --bits 3 --count 5 -o "$WORK/x.npy"
check "  ... says what it needs" grep -q "needs 2 words" "$WORK/err"
check "  ... and leaves no file" test ! -e "$WORK/x.npy"
check "bits 9: invalid input" expect_exit 2 "$ONNXQ" unpack "$WORK/w8.npy" --bits 9 -o -
check "index >= 243: invalid input" bash -c "printf '\xf3' | '$ONNXQ' unpack --radix 3 --group-size 5 -o - >/dev/null 2>'$WORK/e243'; [ \$? = 2 ] && grep -q 'not below radix' '$WORK/e243'"
check "raw bytes not whole u32 words" bash -c "printf 'abc' | '$ONNXQ' unpack --bits 3 --storage u32 -o - >/dev/null 2>/dev/null; [ \$? = 2 ]"
check "--shape disagrees with the bytes" bash -c "printf 'abcd' | '$ONNXQ' unpack --bits 8 --shape 3 -o - >/dev/null 2>/dev/null; [ \$? = 2 ]"
check "depth 0: invalid input" expect_exit 2 "$ONNXQ" onehot "$WORK/neg.npy" --depth 0 -o -
check "duplicate axes: invalid input" expect_exit 2 "$ONNXQ" unsqueeze "$WORK/neg.npy" --axes 0,-3 -o -
check "axis out of range: invalid input" expect_exit 2 "$ONNXQ" unsqueeze "$WORK/neg.npy" --axes 2 -o -
check "not a .npy: invalid input" bash -c "printf 'hello' | '$ONNXQ' unsqueeze --axes 0 -o - >/dev/null 2>'$WORK/enpy'; [ \$? = 2 ] && grep -q 'not a .npy' '$WORK/enpy'"
check "Fortran order: invalid input" bash -c "'$PYTHON' -c 'import numpy as np; np.save(\"$WORK/f.npy\", np.asfortranarray(np.zeros((2, 3))))' && '$ONNXQ' unsqueeze '$WORK/f.npy' --axes 0 -o - >/dev/null 2>'$WORK/ef'; [ \$? = 2 ] && grep -q Fortran '$WORK/ef'"
check "missing file: I/O" expect_exit 3 "$ONNXQ" unsqueeze "$WORK/nope.npy" --axes 0 -o -

# A closed pipe downstream ends the command quietly.
"$PYTHON" -c "import numpy as np; np.save('$WORK/many.npy', np.arange(200000, dtype=np.int64) % 100)"
check "broken pipe is quiet" bash -c "set +o pipefail; '$ONNXQ' onehot '$WORK/many.npy' --depth 100 2>'$WORK/epipe' | head -c 100 >/dev/null; s=\${PIPESTATUS[0]}; [ \"\$s\" = 141 ] || [ \"\$s\" = 0 ]; [ ! -s '$WORK/epipe' ]"

# Binary output is refused on a terminal (stdout a pty); -o omitted is a usage error, -o - invalid.
cat >"$WORK/on_terminal.py" <<'PY'
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.run(sys.argv[2:], stdout=slave, stderr=subprocess.PIPE)
os.close(slave)
os.set_blocking(master, False)
try:
    written = os.read(master, 1 << 16)
except (BlockingIOError, OSError):  # EIO: nothing was written and the slave is closed
    written = b""
assert p.returncode == int(sys.argv[1]), (p.returncode, p.stderr)
assert b"NUMPY" not in written, written[:40]
assert b"terminal" in p.stderr, p.stderr
PY
check "no binary on a terminal (no -o)" "$PYTHON" "$WORK/on_terminal.py" 1 "$ONNXQ" unsqueeze "$WORK/neg.npy" --axes 0
check "no binary on a terminal (-o -)" "$PYTHON" "$WORK/on_terminal.py" 2 "$ONNXQ" unsqueeze "$WORK/neg.npy" --axes 0 -o -

finish
