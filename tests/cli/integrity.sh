#!/usr/bin/env bash
# Output integrity: failures never leave a damaged or partial output, temporaries never linger,
# and an output never lands on its own input or on a device node.
source "$(dirname "$0")/common.bash"
TOOLS=$(cd "$(dirname "$0")" && pwd)
cd "$WORK"

"$PYTHON" -c "
import numpy as np
np.save('small.npy', np.arange(4096, dtype=np.float32).reshape(64, 64))
np.save('mid.npy', np.ones(1 << 18, dtype=np.float32))  # 1 MiB: more than the tiny file system holds"
# A big input that costs nothing to make: a sparse .npy (zeros); writing it out takes a while.
"$PYTHON" -c "
import numpy as np
np.lib.format.open_memmap('big.npy', mode='w+', dtype=np.float32, shape=(${INTEGRITY_BIG_ELEMENTS:-100000000},)).flush()"
no_temps() { ! compgen -G "${1:-.}/.*onnxq-*" >/dev/null; }
unchanged() { cmp -s "$1" "$2"; }

# 1. A write error (/dev/full: ENOSPC) is a clean I/O error, and the device node survives.
#    As root the test uses its own node, so a regression cannot replace the system's /dev/full.
full=/dev/full
if [ "$(id -u)" = 0 ] && mknod "$WORK/full" c 1 7 2>/dev/null; then full=$WORK/full; fi
check "-o $full exits 3" expect_exit 3 "$ONNXQ" unsqueeze small.npy --axes 0 -o "$full"
check "the write error names the output" grep -q "No space left on device" "$WORK/err"
check "$full is still a character device" test -c "$full"
check "no temporary beside $full" no_temps "$(dirname "$full")"

# 2. A full file system: a tiny tmpfs when mounting is allowed, else a file-size limit (EFBIG).
mkdir tiny
if mount -t tmpfs -o size=64k tmpfs tiny 2>/dev/null; then
  check "full tmpfs exits 3" expect_exit 3 "$ONNXQ" unsqueeze mid.npy --axes 0 -o tiny/out.npy
  check "full tmpfs names the error" grep -q "No space left on device" "$WORK/err"
  check "full tmpfs leaves no target" test ! -e tiny/out.npy
  check "full tmpfs leaves no temporary" no_temps tiny
  umount tiny
  mounted_tmpfs=1
else
  echo "note: mount -t tmpfs is not permitted here; the full-disk case uses ulimit -f instead"
fi
check "file-size limit exits 3" expect_exit 3 bash -c "ulimit -f 8; exec \"\$0\" unsqueeze small.npy --axes 0 -o tiny/out.npy" "$ONNXQ"
check "file-size limit leaves no target" test ! -e tiny/out.npy
check "file-size limit leaves no temporary" no_temps tiny
# The failed write must not touch an existing target either.
echo "keep me" >tiny/out.npy
cp tiny/out.npy before.txt
check "failed overwrite exits 3" expect_exit 3 bash -c "ulimit -f 8; exec \"\$0\" unsqueeze small.npy --axes 0 -o tiny/out.npy" "$ONNXQ"
check "failed overwrite keeps the old target" unchanged before.txt tiny/out.npy
rm -f tiny/out.npy

# 3. SIGINT / SIGTERM during a long write: nothing is left, the target never appears.
# Deterministic: once the output file exists the process is stopped (SIGSTOP), the signal is queued,
# and only then is it continued, so the signal always lands mid-write. An exit 0, a write that
# goes straight to the target or a signal that is ignored all fail. Twice: with the unnamed file
# (O_TMPFILE, seen as a deleted file among the process's descriptors) and with the named temporary
# of file systems without it (ONNXQ_TEST_NO_TMPFILE=1), which the signal handler must remove.
writing() {  # writing PID MODE: the process holds its output file in sig/ open
  if [ "$2" = named ]; then compgen -G "sig/.*onnxq-*" >/dev/null; else
    ls -l "/proc/$1/fd" 2>/dev/null | grep -q "$PWD/sig/#[0-9]* (deleted)"; fi
}
for mode in unnamed named; do
  for sig in INT TERM; do
    rm -rf sig && mkdir sig
    if [ $mode = named ]; then export ONNXQ_TEST_NO_TMPFILE=1; fi
    "$ONNXQ" unsqueeze big.npy --axes 0 -o sig/out.npy 2>"sig.err" &
    pid=$!
    unset ONNXQ_TEST_NO_TMPFILE
    seen=0
    for _ in $(seq 1 4000); do
      if writing "$pid" $mode; then seen=1 && break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.005
    done
    kill -STOP "$pid" 2>/dev/null || true
    check "$mode SIG$sig: the write goes to a $mode file first" test "$seen" = 1
    check "$mode SIG$sig: the process is still writing when stopped" writing "$pid" $mode
    check "$mode SIG$sig: no target while writing" test ! -e sig/out.npy
    kill -"$sig" "$pid" 2>/dev/null || true
    kill -CONT "$pid" 2>/dev/null || true
    status=0
    wait "$pid" || status=$?
    want=$((128 + $(kill -l "$sig")))
    check "$mode SIG$sig ends with status $want (got $status)" test "$status" = "$want"
    check "$mode SIG$sig leaves no target" test ! -e sig/out.npy
    check "$mode SIG$sig leaves nothing" test -z "$(ls -A sig)"
  done
done

# 4. A closed pipe ends quietly with the documented status 141 and no temporaries.
set +o pipefail
"$ONNXQ" unsqueeze big.npy --axes 0 -o - 2>pipe.err | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
set -o pipefail
check "closed pipe exits 141 (got $status)" test "$status" = 141
check "closed pipe prints nothing on stderr" test ! -s pipe.err
check "closed pipe leaves no temporary" no_temps .

# 5. A truncated .npy on stdin is invalid input naming the byte counts.
check "truncated stdin exits 2" \
  expect_exit 2 bash -c 'head -c 1000 small.npy | exec "$0" unsqueeze - --axes 0 -o trunc.npy' "$ONNXQ"
# 1000 bytes = the 128-byte preamble and header + 872 of the 16384 data bytes.
check "truncated stdin names the byte counts" grep -q "needs 16384 data bytes, found 872" "$WORK/err"
check "truncated stdin leaves no output" test ! -e trunc.npy

# 6. The output is never one of the inputs (same path, a hard link, or stdin redirected from it).
cp small.npy in.npy
cp in.npy in.orig
check "-o onto the input is refused" expect_exit 2 "$ONNXQ" unsqueeze in.npy --axes 0 -o in.npy
check "the refusal says why" grep -q "input" "$WORK/err"
ln in.npy link.npy
check "-o onto a hard link of the input is refused" expect_exit 2 "$ONNXQ" unsqueeze in.npy --axes 0 -o link.npy
check "-o onto stdin's file is refused" expect_exit 2 bash -c "exec \"\$0\" unsqueeze - --axes 0 -o in.npy <in.npy" "$ONNXQ"
check "stdout appended onto the input is refused" expect_exit 2 bash -c "exec \"\$0\" unsqueeze in.npy --axes 0 -o - >>in.npy" "$ONNXQ"
check "the input is unchanged" unchanged in.orig in.npy
check "refusals leave no temporary" no_temps .
# `run` reads a .pb input into memory and closes it; writing its output y.pb onto that input was
# possible before inputs were noted by inode.
case_dir=$TESTDATA/onnx-node/test_unsqueeze_axis_0
mkdir runout
cp "$case_dir/test_data_set_0/input_0.pb" runout/y.pb
cp runout/y.pb y.orig
check "run refuses to write its output onto its .pb input" expect_exit 2 \
  "$ONNXQ" run "$case_dir/model.onnx" -i runout/y.pb -i "$case_dir/test_data_set_0/input_1.pb" --pb -o runout
check "the .pb input is unchanged" unchanged y.orig runout/y.pb
cp "$TESTDATA/zoo.gguf" zoo.gguf
check "dequant -o onto the GGUF being read is refused" \
  expect_exit 2 "$ONNXQ" dequant zoo.gguf --tensor q4_0.weight -o zoo.gguf
check "the GGUF is unchanged" unchanged "$TESTDATA/zoo.gguf" zoo.gguf
# Every shard of a split model stays mapped while any of it is read (lib/src/io/same_file.cpp asks
# /proc/self/maps), so an output onto another shard is refused too.
"$PYTHON" "$TOOLS/gguf_tool.py" split "$TESTDATA/zoo.gguf" part 3
cp part-00003-of-00003.gguf part3.orig
check "dequant -o onto another shard of the model being read is refused" \
  expect_exit 2 "$ONNXQ" dequant part-00001-of-00003.gguf --tensor q4_0.weight -o part-00003-of-00003.gguf
check "the other shard is unchanged" unchanged part3.orig part-00003-of-00003.gguf

# 7. Temporaries: exclusive creation (O_EXCL), umask-derived modes, planted symlinks ignored.
echo "victim" >victim.txt
for n in XXXXXX 000000 aaaaaa; do ln -s victim.txt ".out.npy.onnxq-$n"; done
check "write with planted symlinks succeeds" expect_exit 0 env ONNXQ_TEST_NO_TMPFILE=1 "$ONNXQ" unsqueeze small.npy --axes 0 -o out.npy
check "planted symlinks did not redirect the write" test "$(cat victim.txt)" = victim
check "the output is a regular file" test -f out.npy -a ! -L out.npy
rm -f .out.npy.onnxq-*
ln -s victim.txt linked.npy
check "-o onto a symlink replaces the link, not its target" expect_exit 0 "$ONNXQ" unsqueeze small.npy --axes 0 -o linked.npy
check "the symlink's target is untouched" test "$(cat victim.txt)" = victim
for named in 0 1; do  # the unnamed file, and the named temporary
  for mask in 022 027 077; do
    rm -f m.npy
    (umask "$mask" && ONNXQ_TEST_NO_TMPFILE=$named "$ONNXQ" unsqueeze small.npy --axes 0 -o m.npy)
    want=$(printf '%o' $((0666 & ~8#$mask)))
    check "umask $mask gives mode $want (named temporary: $named)" test "$(stat -c %a m.npy)" = "$want"
  done
done
# strace comes from scripts/setup; a missing strace (or no ptrace) fails rather than skipping.
# LeakSanitizer cannot run under ptrace: off for this one run of a sanitizer build.
check "strace runs here (scripts/setup installs it)" strace -f -o /dev/null true
ONNXQ_TEST_NO_TMPFILE=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  strace -f -e trace=openat -o trace.txt "$ONNXQ" unsqueeze small.npy --axes 0 -o s.npy || true
check "the named temporary is created with O_CREAT|O_EXCL" grep -Eq 'onnxq-[^"]*".*O_CREAT\|O_EXCL|onnxq-[^"]*".*O_EXCL' trace.txt

# 8. A FIFO output is written in place (no temporary beside it, the FIFO stays a FIFO).
mkfifo out.fifo
cat out.fifo >fifo.data &
reader=$!
check "-o FIFO exits 0" expect_exit 0 "$ONNXQ" unsqueeze small.npy --axes 0 -o out.fifo
wait "$reader"
check "the FIFO carried the .npy" "$PYTHON" -c "import numpy as np; assert np.load('fifo.data').shape == (1, 64, 64)"
check "the FIFO is still a FIFO" test -p out.fifo
check "no temporary beside the FIFO" no_temps .

finish
