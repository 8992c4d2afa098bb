# The streamed write path (lib/src/stream/tensor_stream.cpp) on tensors of many chunks (65536 values each): every thread
# count, a file (positional writes from every thread), a pipe (one ordered writer) and export give
# the same bytes, and those are ggml's values (the q4_0/q6_k block samples, tiled).
source "$(dirname "$0")/common.bash"
cd "$WORK"
blocks=$TESTDATA/gguf/blocks
# Two tensors: q4_0 [70, 4096] (1.1 MiB of float32: 5 chunks, the last one partial) and
# q6_k [777, 2048] (6.1 MiB: 25 chunks), plus their expected float32 values; and in long.gguf one
# q4_0 [2304, 4096] (36 MiB: long enough for the default to add threads).
"$PYTHON" - "$blocks" <<'PY'
import struct, sys
import numpy as np
sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0] if "/" in sys.argv[0] else ".")
blocks = sys.argv[1]
def tile(fmt, rows, cols, be, bb, ggml):
    raw = open(f"{blocks}/{fmt}.bin", "rb").read()
    want = np.load(f"{blocks}/{fmt}.f32.npy").reshape(-1)
    nblocks = rows * cols // be
    reps = nblocks // (len(raw) // bb) + 1
    np.save(f"{fmt}.expected.npy", np.tile(want, reps)[: rows * cols].reshape(rows, cols))
    return (fmt.encode(), [cols, rows], ggml, (raw * reps)[: nblocks * bb])
def s(x): return struct.pack("<Q", len(x)) + x
def write_gguf(path, tensors):
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 0))
    blob = bytearray()
    for name, ne, t, raw in tensors:
        blob += b"\0" * (-len(blob) % 32)
        out += s(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne) + struct.pack("<IQ", t, len(blob))
        blob += raw
    out += b"\0" * (-len(out) % 32)
    open(path, "wb").write(out + blob)
write_gguf("big.gguf", [tile("q4_0", 70, 4096, 32, 18, 2), tile("q6_k", 777, 2048, 256, 210, 14)])
raw = open(f"{blocks}/q4_0.bin", "rb").read()
nbytes = 2304 * 4096 // 32 * 18
write_gguf("long.gguf", [(b"t", [4096, 2304], 2, (raw * (nbytes // len(raw) + 1))[:nbytes])])
PY

matches() {  # matches NPY EXPECTED.npy: identical arrays (bit for bit)
  "$PYTHON" -c 'import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() else 1)' "$1" "$2"
}
for t in q4_0 q6_k; do
  for n in 1 2 3 5; do
    check "$t --threads $n to a file" expect_exit 0 "$ONNXQ" dequant big.gguf --tensor $t --threads $n -o $t.$n.npy
    check "$t --threads $n has ggml's values" matches $t.$n.npy $t.expected.npy
  done
  check "$t default threads" expect_exit 0 "$ONNXQ" dequant big.gguf --tensor $t -o $t.d.npy
  check "$t default threads has ggml's values" matches $t.d.npy $t.expected.npy
  check "$t to a pipe" bash -c "'$ONNXQ' dequant big.gguf --tensor $t --threads 2 -o - | cat > $t.pipe.npy"
  check "$t through a pipe has ggml's values" matches $t.pipe.npy $t.expected.npy
  # Over an existing, longer file: the result is exactly the new tensor.
  head -c 20000000 /dev/zero >$t.old.npy
  check "$t over a longer file" expect_exit 0 "$ONNXQ" dequant big.gguf --tensor $t --threads 2 -o $t.old.npy
  check "$t over a longer file has ggml's values" matches $t.old.npy $t.expected.npy
done
# Replacing a file (app/output.cpp): the two names are swapped (renameat2 RENAME_EXCHANGE) and the
# old file removed, rather than rename() over it, which makes ext4 write the new file back on the
# spot. Another hard link keeps the old bytes, a symlink is replaced (as rename() does) and no
# temporary is left beside the target.
mkdir replace && head -c 5000 /dev/urandom >replace/old.bin && ln replace/old.bin replace/link.bin
cp replace/old.bin replace/old.copy && ln -s old.copy replace/sym.npy
check "replacing a file" expect_exit 0 "$ONNXQ" dequant big.gguf --tensor q4_0 -o replace/old.bin
check "the replaced file holds the new tensor" matches replace/old.bin q4_0.expected.npy
check "another hard link keeps the old bytes" bash -c "[ \$(stat -c %h replace/link.bin) = 1 ] && ! cmp -s replace/link.bin replace/old.bin"
check "a symlink target is replaced by the file" expect_exit 0 "$ONNXQ" dequant big.gguf --tensor q4_0 -o replace/sym.npy
check "the symlink is now a regular file" bash -c "[ -f replace/sym.npy ] && [ ! -L replace/sym.npy ] && [ \$(stat -c %s replace/old.copy) = 5000 ]"
check "no temporary is left beside the targets" bash -c "[ -z \"\$(ls -A replace | grep -v -x -e old.bin -e link.bin -e old.copy -e sym.npy)\" ]"
check "strace runs here (scripts/setup installs it)" strace -f -o /dev/null true
# traced RUN...: runs onnxq under strace. LeakSanitizer cannot run under ptrace, so it is off for
# these runs of a sanitizer build (the other runs of this test keep it).
traced() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f "$@"; }
traced -e trace=rename,renameat,renameat2 -o replace.trace "$ONNXQ" dequant big.gguf --tensor q4_0 -o replace/old.bin
check "a replacement swaps names and does not rename() over the file" \
  bash -c "grep -q 'RENAME_EXCHANGE' replace.trace && ! grep -E '^[0-9]+ +rename(at)?\\(' replace.trace"
# A new file is written unnamed (O_TMPFILE) and linked into place: no rename, no temporary name.
traced -e trace=openat,linkat,rename,renameat,renameat2 -o new.trace "$ONNXQ" dequant big.gguf --tensor q4_0 -o replace/new.npy
check "a new file is written unnamed (O_TMPFILE)" grep -qE 'openat\(AT_FDCWD, "replace".*O_TMPFILE' new.trace
check "a new file is linked into place, not renamed" \
  bash -c "grep -qE 'linkat\\(AT_FDCWD, \"/proc/self/fd/[0-9]+\", AT_FDCWD, \"replace/new.npy\", AT_SYMLINK_FOLLOW\\) = 0' new.trace && ! grep -qE '^[0-9]+ +rename(at2?)?\\(' new.trace"
ONNXQ_TEST_NO_TMPFILE=1 traced -e trace=rename,renameat,renameat2 -o named.trace "$ONNXQ" dequant big.gguf --tensor q4_0 -o replace/named.npy
check "without O_TMPFILE a new file is renamed into place" grep -qE '^[0-9]+ +rename(at2?)?\(' named.trace
check "the new file holds the tensor" matches replace/new.npy q4_0.expected.npy
# The output's data is allocated ahead (fallocate) in one call of its exact size: 70 x 4096 float32.
traced -e trace=fallocate -o falloc.trace "$ONNXQ" dequant big.gguf --tensor q4_0 -o replace/falloc.npy
check "the data is allocated ahead in one fallocate of its size" grep -qE 'fallocate\([0-9]+, 0, 128, 1146880\) += 0' falloc.trace
check "the file is exactly the .npy" matches replace/falloc.npy q4_0.expected.npy
check "a file-size limit stops the decode before it writes (exit 3)" \
  expect_exit 3 bash -c "ulimit -f 64; exec \"\$0\" dequant big.gguf --tensor q6_k -o replace/limited.npy" "$ONNXQ"
check "the limit is reported" grep -q "File too large" "$WORK/err"
check "the limit leaves no file" bash -c "[ ! -e replace/limited.npy ] && ! compgen -G 'replace/.limited*' >/dev/null"
check "raw output equals the .npy data" bash -c "'$ONNXQ' dequant big.gguf --tensor q6_k --format raw --threads 2 -o q6.raw &&
  tail -c \$(stat -c %s q6.raw) q6_k.1.npy | cmp -s - q6.raw"

# Default threads: a short tensor (less than 32 MiB of output left after the four probe chunks) is written
# from one thread; on a busy machine (a busy loop on every CPU, children stopped by their own PIDs)
# more threads would only wait for a CPU, so a long tensor is too; an explicit --threads 2 still
# uses two. The -vv log says which, and the bytes are the same.
check "a short tensor: the default decodes with one thread" bash -c \
  "'$ONNXQ' dequant big.gguf --tensor q6_k -o short.npy -vv 2>&1 | grep -qE 'write: .*; 21 chunks left; .*; one thread'"
"$ONNXQ" dequant long.gguf --tensor t --threads 1 -o long.1.npy
busy=()
trap 'kill "${busy[@]}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq "$(nproc)"); do
  bash -c 'while :; do :; done' &
  busy+=($!)
done
sleep 0.3
check "busy CPUs: the default decodes a long tensor with one thread" bash -c \
  "'$ONNXQ' dequant long.gguf --tensor t -o busy.npy -vv 2>&1 | grep -qE 'write: .*other runnable threads: [1-9][0-9]*; one thread'"
check "busy CPUs: the default's output is the one-thread output" cmp -s busy.npy long.1.npy
check "busy CPUs: --threads 2 still uses two" bash -c \
  "'$ONNXQ' dequant long.gguf --tensor t --threads 2 -o busy2.npy -vv 2>&1 | grep -qE 'write: .*; 2 threads'"
kill "${busy[@]}"
wait "${busy[@]}" 2>/dev/null || true  # killed: 143

# export: one file holding both tensors, with every thread count the same bytes.
check "export --threads 1" expect_exit 0 "$ONNXQ" export big.gguf -o e1.safetensors --threads 1
check "export --threads 2" expect_exit 0 "$ONNXQ" export big.gguf -o e2.safetensors --threads 2
check "export --threads 3" expect_exit 0 "$ONNXQ" export big.gguf -o e3.safetensors --threads 3
check "export is the same for every thread count" bash -c "cmp -s e1.safetensors e2.safetensors && cmp -s e1.safetensors e3.safetensors"
exported_ok() {
  "$PYTHON" - <<'PY'
import json, struct, sys
import numpy as np
data = open("e2.safetensors", "rb").read()
(n,) = struct.unpack_from("<Q", data)
header = json.loads(data[8:8 + n])
for name in ("q4_0", "q6_k"):
    begin, end = header[name]["data_offsets"]
    got = np.frombuffer(data[8 + n + begin:8 + n + end], dtype="<f4")
    if got.tobytes() != np.load(f"{name}.expected.npy").astype("<f4").tobytes():
        sys.exit(f"{name} differs")
PY
}
check "export holds ggml's values" exported_ok
finish
