#!/usr/bin/env bash
# Fault injection (issue 22): each fault strikes commands that write files at random moments, and
# the invariant is checked on the output directory afterwards: every target is either its old file,
# byte for byte, or the new file complete and exact; nothing else is there; the exit status is the
# documented one, and 0 only when everything asked for was written.
# The delays come from FAULT_SEED (printed; set it to repeat a run). Runs as root: it mounts its own
# tmpfs file systems (the work area, and small ones to fill) and unmounts them.
source "$(dirname "$0")/common.bash"
TOOLS=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "faults.sh mounts tmpfs file systems: run it as root" >&2; exit 1; }
cd "$WORK"
mkdir fs tiny
# Lazily (-l): a child still running, or the shell's working directory, would keep them busy. (A
# trap runs under set -e: each step must not fail.) Only this shell cleans up: a signal sent to a
# job in the instant between bash's fork and its exec runs the traps in the forked copy.
trap 'if [ "$BASHPID" = $$ ]; then cd /; umount -l "$WORK/tiny" 2>/dev/null || true; umount -l "$WORK/fs" || true; rm -rf "$WORK"; fi' EXIT
trap 'exit 143' TERM  # ctest's time-out: unmount on the way out too
trap 'exit 130' INT
# The inputs and outputs live on tmpfs: writes are fast, and truncating a mapped input there makes
# the pages vanish at once.
mount -t tmpfs -o size=3g tmpfs fs
cd fs
seed=${FAULT_SEED:-$(date +%s)}
RANDOM=$seed
echo "fault seed $seed (FAULT_SEED=$seed repeats these delays)"

# big.gguf: f16 tensors whose values vary: a small one, two of 8M elements (32 MiB each as float32)
# and one of 64M (256 MiB). Exported with --max-shard-size 100MB: the first three, then the big one.
"$PYTHON" - "$TOOLS" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from gguf_tool import write_gguf
n = 64 << 20
values = (np.arange(n, dtype=np.uint32) % 30011).astype(np.float16).view("<u2")
mid = values[: n // 8].tobytes()
write_gguf("big.gguf", [], [[b"small.weight", (4096,), 1, 0, values[:4096].tobytes()],
                            [b"mid.0", (n // 8 // 4096, 4096), 1, 0, mid], [b"mid.1", (n // 8,), 1, 0, mid],
                            [b"big.weight", (n // 4096, 4096), 1, 0, values.tobytes()]], 32)
PY

# The jobs: a name and its arguments, which write into the directory OUT (substituted when run).
declare -A JOB=(
  [dequant1]="dequant IN --tensor big.weight --threads 1 -o OUT/big.npy"
  [dequant]="dequant IN --tensor big.weight -o OUT/big.npy"
  [all]="dequant IN --all --out-dir OUT"
  [export]="export IN --dtype f32 -o OUT/model.safetensors"
  [shards]="export IN --dtype f32 --max-shard-size 100MB -o OUT/model.safetensors"
  [edit]="edit IN --set general.name=str:faults -o OUT/edited.gguf"
  [endian]="convert-endian IN --to big -o OUT/big-endian.gguf"
  [split]="split IN --max-size 100MB -o OUT/part"
  [merge]="merge set-00001-of-00002.gguf -o OUT/merged.gguf"
)
JOBS=(dequant1 dequant all export shards edit endian split merge)
# Jobs whose files are committed together: after a fault they are all old or all new. `dequant
# --all` names each tensor's file when that file is complete, so its files may be a mix.
declare -A TOGETHER=([dequant1]=1 [dequant]=1 [export]=1 [shards]=1 [all]=0 [edit]=1 [endian]=1 [split]=1 [merge]=1)

# The split model merge reads (its input is not cut in step 3: it is not IN).
"$ONNXQ" split big.gguf --max-size 100MB -o set
args() { local a=${JOB[$1]//IN/$2}; echo "${a//OUT/$3}"; }  # args JOB INPUT DIR
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# new/JOB: what the job writes when nothing goes wrong; old/JOB: the same names, other bytes (the
# files a run replaces). ms[JOB]: how long the job takes here, from which the delays are drawn.
declare -A ms
for job in "${JOBS[@]}"; do
  mkdir -p "new/$job" "old/$job"
  t0=$(now_ms)
  "$ONNXQ" $(args $job big.gguf "new/$job") || { echo "the $job job fails without a fault" >&2; exit 1; }
  ms[$job]=$(($(now_ms) - t0 + 1))
  for f in $(ls "new/$job"); do echo "old $f of $job" >"old/$job/$f"; done
done
[ "$(ls new/split | wc -l)" = 2 ] || { echo "split: expected 2 shards: $(ls new/split)" >&2; exit 1; }
echo "job times (ms): $(for j in "${JOBS[@]}"; do printf '%s=%s ' $j ${ms[$j]}; done)"
[ "$(ls new/shards | wc -l)" = 3 ] || { echo "shards: expected 2 shards and an index: $(ls new/shards)" >&2; exit 1; }

delay() {  # delay JOB: a random pause in seconds, up to 1.2 times the job's own time
  local d=$(((RANDOM * 32768 + RANDOM) % (${ms[$1]} * 6 / 5)))
  printf '%d.%03d' $((d / 1000)) $((d % 1000))
}
fresh() { rm -rf "$1" && mkdir -p "$1" && cp "old/$2/"* "$1/"; }  # fresh DIR JOB: the old files
strays() { find "$WORK" -name '.*onnxq-*' | head -3; }  # named temporaries left anywhere

# leftovers JOB STATUS [FILE...]: no named temporary is left, except after kill -9 (exit 137) in
# the two system calls' width between naming the finished file and renaming it over the target (or
# between swapping the two and removing the old one): then it holds a whole old or new file (one of
# JOB's, or a FILE), which is reported and removed. No signal that can be caught leaves one.
leftovers() {
  local job=$1 status=$2 t f whole
  shift 2
  for t in $(strays); do
    whole=0
    for f in "new/$job"/* "old/$job"/* "$@"; do
      if cmp -s "$t" "$f"; then whole=1; fi
    done
    if [ "$status" = 137 ] && [ $whole = 1 ]; then
      echo "  $job: killed between naming and renaming: $(basename "$t") holds a whole file"
      rm -f "$t"
    else
      echo "$job: stray temporary $t ($(stat -c %s "$t") bytes)" >&2
      return 1
    fi
  done
}

# settled JOB DIR STATUS ALLOWED...: the invariant, after a run of JOB into DIR ended with STATUS.
settled() {
  local job=$1 dir=$2 status=$3 f fresh_files=0 old_files=0
  shift 3
  case " $* " in *" $status "*) ;; *) echo "$job: exit $status, expected one of: $*" >&2; return 1 ;; esac
  [ "$(ls -A "$dir")" = "$(ls -A "new/$job")" ] || { echo "$job: $dir holds: $(ls -A "$dir" | tr '\n' ' ')" >&2; return 1; }
  leftovers $job $status || return 1
  for f in $(ls "new/$job"); do
    if cmp -s "$dir/$f" "new/$job/$f"; then fresh_files=$((fresh_files + 1))
    elif cmp -s "$dir/$f" "old/$job/$f"; then old_files=$((old_files + 1))
    else echo "$job: $dir/$f is neither the old file nor the complete new one ($(stat -c %s "$dir/$f") bytes)" >&2; return 1
    fi
  done
  if [ "$status" = 0 ] && [ $old_files != 0 ]; then echo "$job: exit 0, but $old_files files were not written" >&2; return 1; fi
  if [ "${TOGETHER[$job]}" = 1 ] && [ $fresh_files != 0 ] && [ $old_files != 0 ]; then
    echo "$job: $fresh_files files new and $old_files old: a partial set" >&2
    return 1
  fi
}

# strike SIGNAL JOB [ENV...]: runs JOB into out/ over its old files, sends SIGNAL after a random delay.
strike() {
  local sig=$1 job=$2 status=0 pause
  shift 2
  pause=$(delay $job)
  fresh out $job
  env "$@" "$ONNXQ" $(args $job big.gguf out) 2>run.err &
  local pid=$!
  sleep "$pause"
  kill -"$sig" $pid 2>/dev/null || true
  wait $pid 2>/dev/null || status=$?  # (no "Killed" line from the shell)
  echo "  $sig $job after ${pause}s: exit $status"
  settled $job out $status 0 $((128 + $(kill -l $sig)))
}

# 1. kill -9 at random moments (it cannot be caught: only the unnamed file keeps it clean).
for round in 1 2 3; do
  for job in "${JOBS[@]}"; do check "kill -9 ($job, round $round)" strike KILL $job; done
done

# 1b. edit and convert-endian --in-place killed at random moments: the input is its old self or
#     the finished new file (the same bytes as with -o), nothing else, and no temporary is left
#     (but in kill -9's window: leftovers).
in_place() {  # in_place SIGNAL JOB
  local sig=$1 job=$2 status=0 pause new
  pause=$(delay $job)
  new=$(ls "new/$job")
  cp big.gguf run.gguf
  "$ONNXQ" $(args $job run.gguf out | sed 's/ -o [^ ]*/ --in-place/') 2>run.err &
  local pid=$!
  sleep "$pause"
  kill -"$sig" $pid 2>/dev/null || true
  wait $pid 2>/dev/null || status=$?
  echo "  $sig $job --in-place after ${pause}s: exit $status"
  leftovers $job $status big.gguf || return 1
  [ "$(ls -A | grep -c onnxq)" = 0 ] || { echo "$job --in-place: left $(ls -A | grep onnxq)" >&2; return 1; }
  if cmp -s run.gguf "new/$job/$new"; then return 0; fi
  [ "$status" != 0 ] && cmp -s run.gguf big.gguf && return 0
  echo "$job --in-place: exit $status, and run.gguf is neither the old file nor the new one" >&2
  return 1
}
for round in 1 2 3; do
  for job in edit endian; do
    check "kill -9 ($job --in-place, round $round)" in_place KILL $job
    check "SIGTERM ($job --in-place, round $round)" in_place TERM $job
  done
done

# 2. SIGINT and SIGTERM at random moments, with the unnamed file and with the named temporary
#    of file systems without O_TMPFILE, which the signal handlers remove.
for sig in INT TERM; do
  for job in "${JOBS[@]}"; do
    check "SIG$sig ($job)" strike $sig $job
    check "SIG$sig ($job, named temporary)" strike $sig $job ONNXQ_TEST_NO_TMPFILE=1
  done
done

# 3. The input cut to its header while it is read, at random moments: an I/O error naming the
#    input (exit 3), or invalid input when the cut came before the file was opened (exit 2), or
#    success when it came after the last read. The commands that only read tensors too.
cut_input() {
  local job=$1 status=0 pause
  pause=$(delay $job)
  fresh out $job
  cp big.gguf run.gguf
  "$ONNXQ" $(args $job run.gguf out) 2>run.err &
  local pid=$!
  sleep "$pause"
  truncate -s 4096 run.gguf
  wait $pid || status=$?
  echo "  cut $job after ${pause}s: exit $status"
  if [ $status = 3 ] && ! grep -q "^onnxq: error: run.gguf changed size while it was being read" run.err; then
    echo "$job: exit 3 without naming the input: $(cat run.err)" >&2
    return 1
  fi
  settled $job out $status 0 2 3
}
for round in 1 2; do
  for job in "${JOBS[@]}"; do check "input cut mid-read ($job, round $round)" cut_input $job; done
done
cut_reader() {
  local status=0
  cp big.gguf run.gguf
  "$ONNXQ" "$@" >/dev/null 2>run.err &
  local pid=$!
  sleep "$(delay dequant)"
  truncate -s 4096 run.gguf
  wait $pid || status=$?
  case $status in 0 | 2 | 3) ;; *) echo "$*: exit $status: $(cat run.err)" >&2 && return 1 ;; esac
}
for cmd in "stats run.gguf" "hash --sha256 run.gguf" "diff run.gguf big.gguf"; do
  check "input cut mid-read ($cmd)" cut_reader $cmd
done

# 4. A full file system: a small tmpfs of several sizes, so that the space runs out at different
#    points (before the first byte, within a shard, after the first shards). Exit 3, naming it.
full_fs() {
  local job=$1 size=$2 status=0
  mount -t tmpfs -o "size=$size" tmpfs "$WORK/tiny" || return 1
  fresh "$WORK/tiny/out" $job
  "$ONNXQ" $(args $job big.gguf "$WORK/tiny/out") 2>run.err || status=$?
  grep -q "No space left on device" run.err || { echo "$job ($size): $(cat run.err)" >&2; status=fail; }
  settled $job "$WORK/tiny/out" $status 3
  local ok=$?
  umount "$WORK/tiny"
  return $ok
}
for size in 64k 8m 120m 230m; do
  for job in dequant all shards; do check "full file system of $size ($job)" full_fs $job $size; done
done

# 5. A file-size limit (ulimit -f, in KiB) that stops the write at several points.
size_limit() {
  local job=$1 limit=$2 status=0
  fresh out $job
  bash -c "ulimit -f $limit; exec \"\$@\"" limit "$ONNXQ" $(args $job big.gguf out) 2>run.err || status=$?
  grep -q "File too large" run.err || { echo "$job (ulimit -f $limit): $(cat run.err)" >&2; status=fail; }
  settled $job out $status 3
}
for limit in 1 4096 120000 230000; do
  for job in dequant all shards; do check "ulimit -f $limit ($job)" size_limit $job $limit; done
done

# The GGUF writers' outputs are the input's size (160 MiB): limits below it. split writes 34 MB,
# then 134 MB: 120m runs out in the second shard.
for limit in 64k 8m 120m; do
  for job in edit endian split merge; do check "full file system of $limit ($job)" full_fs $job $limit; done
done
for limit in 1 4096 120000; do
  for job in edit endian split merge; do check "ulimit -f $limit ($job)" size_limit $job $limit; done
done

# 6. Closed standard descriptors: the outputs are still written whole, and never to a stream.
closed_fds() {
  local fds=$1 job=$2 status=0
  fresh out $job
  case $fds in
    0) "$ONNXQ" $(args $job big.gguf out) <&- || status=$? ;;
    1) "$ONNXQ" $(args $job big.gguf out) >&- || status=$? ;;
    2) "$ONNXQ" $(args $job big.gguf out) 2>&- || status=$? ;;
    012) "$ONNXQ" $(args $job big.gguf out) <&- >&- 2>&- || status=$? ;;
  esac
  settled $job out $status 0
}
for fds in 0 1 2 012; do
  for job in dequant export; do check "descriptors $fds closed ($job)" closed_fds $fds $job; done
done

# 7. The output directory removed mid-run: an I/O error naming the output or its directory (or
#    success, when the run was over first), and nothing recreated or left anywhere.
dir_removed() {
  local job=$1 status=0 pause
  shift
  pause=$(delay $job)
  fresh out $job
  env "$@" "$ONNXQ" $(args $job big.gguf out) 2>run.err &
  local pid=$!
  sleep "$pause"
  rm -rf out
  wait $pid || status=$?
  echo "  out/ removed in $job after ${pause}s: exit $status"
  case $status in
    0) ;;
    3) grep -qE "^onnxq: error: (.* )?out(/|:)" run.err || { echo "$job: $(cat run.err)" >&2 && return 1; } ;;
    *) echo "$job: exit $status: $(cat run.err)" >&2 && return 1 ;;
  esac
  [ ! -e out ] && [ -z "$(strays)" ] || { echo "$job: left $(ls -A out 2>/dev/null) $(strays)" >&2 && return 1; }
}
for job in dequant1 export shards; do
  check "output directory removed ($job)" dir_removed $job
  check "output directory removed ($job, named temporary)" dir_removed $job ONNXQ_TEST_NO_TMPFILE=1
done
# The same, with the removal certain to fall mid-write: the process is stopped while it holds its
# unnamed output open, the directory removed, and the process continued. Exit 3.
dir_removed_mid_write() {
  local status=0
  fresh out dequant1
  "$ONNXQ" $(args dequant1 big.gguf out) 2>run.err &
  local pid=$! fd seen=0
  # Looked for as long as the command runs (no deadline that a loaded machine could outrun); the
  # window is the whole write of 256 MiB.
  while [ $seen = 0 ] && kill -0 $pid 2>/dev/null; do
    for fd in /proc/$pid/fd/*; do
      [[ "$(readlink "$fd" 2>/dev/null)" == "$PWD/out/#"*" (deleted)" ]] && seen=1 && break
    done
    [ $seen = 1 ] || sleep 0.001  # leave the CPU to the command
  done
  [ $seen = 1 ] || { echo "the command ended before its output was seen open" >&2 && return 1; }
  kill -STOP $pid && rm -rf out && kill -CONT $pid
  wait $pid || status=$?
  [ $status = 3 ] && grep -q "^onnxq: error: .*out/big.npy" run.err && [ ! -e out ] ||
    { echo "exit $status: $(cat run.err)" >&2 && return 1; }
}
check "output directory removed mid-write" dir_removed_mid_write

# 8. A reader of standard output that goes away after a random amount: exit 141, quietly.
reader_gone() {
  local bytes=$1 status
  set +o pipefail
  "$ONNXQ" $(args dequant big.gguf -) 2>run.err | head -c $bytes >/dev/null
  status=${PIPESTATUS[0]}
  set -o pipefail
  [ "$status" = 141 ] && [ ! -s run.err ] && [ -z "$(strays)" ] ||
    { echo "reader gone after $bytes bytes: exit $status, $(cat run.err)" >&2 && return 1; }
}
JOB[dequant]="dequant IN --tensor big.weight -o OUT"  # OUT is "-": standard output
for _ in 1 2 3 4 5 6; do
  bytes=$(((RANDOM * 32768 + RANDOM) % (64 << 20)))
  check "reader of stdout gone after $bytes bytes" reader_gone $bytes
done

finish
