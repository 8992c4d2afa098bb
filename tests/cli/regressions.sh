#!/usr/bin/env bash
# One test per bug found (issue 22 onwards), each named after the bug it guards against.
source "$(dirname "$0")/common.bash"
TOOLS=$(cd "$(dirname "$0")" && pwd)
cd "$WORK"
ZOO=$TESTDATA/zoo.gguf

# closed WANT FDS CMD...: CMD exits with WANT when run with the descriptors FDS (0, 1, 2, 02 or 012)
# closed; what stays open goes to $WORK/out and $WORK/err.
closed() {
  local want=$1 fds=$2 got=0
  shift 2
  case $fds in
    0) "$@" <&- >"$WORK/out" 2>"$WORK/err" || got=$? ;;
    1) "$@" >&- 2>"$WORK/err" || got=$? ;;
    2) "$@" >"$WORK/out" 2>&- || got=$? ;;
    02) "$@" <&- >"$WORK/out" 2>&- || got=$? ;;
    012) "$@" <&- >&- 2>&- || got=$? ;;
  esac
  [ "$got" = "$want" ] || { echo "expected exit $want, got $got with $fds closed: $*" >&2; return 1; }
}

# dequant -o x.npy with stdout closed exited 0 without x.npy and left .x.npy.onnxq-XXXXXX: the
# temporary got descriptor 1, which the sink took for standard output.
regression_closed_stdout_leaves_temp() {
  mkdir closed && cd closed || return 1
  closed 0 1 "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight -o x.npy || return 1
  "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight -o ../ref.npy || return 1
  cmp -s x.npy ../ref.npy && [ "$(ls -A)" = x.npy ]
  local ok=$?
  cd .. && return $ok
}
check regression_closed_stdout_leaves_temp regression_closed_stdout_leaves_temp

# Closed descriptors 0 and 2 too: an output file never takes a standard stream's number. With
# stderr closed the output took descriptor 2, and -vv's log lines went into the file.
regression_closed_stderr_logs_into_output() {
  rm -rf closed02 && mkdir closed02
  "$ONNXQ" export "$ZOO" -o ref.safetensors || return 1
  for fds in 0 2 02 012; do
    closed 0 $fds "$ONNXQ" -vv export "$ZOO" -o closed02/x.safetensors || return 1
    cmp -s closed02/x.safetensors ref.safetensors && [ "$(ls -A closed02)" = x.safetensors ] || return 1
  done
  # Reading a closed stdin is still the error it was (not an empty /dev/null).
  closed 3 0 "$ONNXQ" unsqueeze - --axes 0 -o closed02/y.npy || return 1
  grep -q "Bad file descriptor" "$WORK/err" && [ ! -e closed02/y.npy ]
}
check regression_closed_stderr_logs_into_output regression_closed_stderr_logs_into_output

# `list >&-` said "cannot write standard output" without the reason; binary output asked for on a
# closed stdout must fail too (exit 3), not vanish into /dev/null.
regression_closed_stdout_error_has_no_reason() {
  closed 3 1 "$ONNXQ" list "$ZOO" || return 1
  grep -qx "onnxq: error: cannot write standard output: Bad file descriptor" "$WORK/err" || return 1
  closed 3 1 "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight -o - || return 1
  grep -q "cannot write standard output: Bad file descriptor" "$WORK/err"
}
check regression_closed_stdout_error_has_no_reason regression_closed_stdout_error_has_no_reason

# An input truncated while it was read (a download still running, a converter rewriting it) killed
# the command with SIGBUS (exit 135) and left its temporary. Each command that reads tensor data is
# stopped once it has mapped the file, the file is cut to its header, and the command continued:
# an I/O error naming the file, exit 3, nothing written.
regression_truncated_input_dies_of_sigbus() {
  "$PYTHON" "$TOOLS/fault_tool.py" big-gguf big.gguf 96 || return 1
  cp big.gguf other.gguf
  local cmd status ok=0
  for cmd in "dequant run.gguf --tensor big.weight --dtype f16 -o out/t.npy" \
    "dequant run.gguf --tensor big.weight --dtype f16 --threads 2 -o out/t.npy" \
    "export run.gguf --dtype f16 -o out/t.safetensors" "stats run.gguf" "hash --sha256 run.gguf" \
    "diff run.gguf other.gguf"; do
    rm -rf out run.gguf && mkdir out && cp --sparse=always big.gguf run.gguf
    "$ONNXQ" $cmd >run.out 2>run.err &
    local pid=$!
    "$PYTHON" "$TOOLS/fault_tool.py" stop-when-mapped $pid run.gguf || { echo "not stopped: $cmd" >&2; ok=1; }
    truncate -s 4096 run.gguf
    kill -CONT $pid
    status=0
    wait $pid || status=$?
    if [ $status != 3 ] || ! grep -q "^onnxq: error: run.gguf changed size while it was being read" run.err ||
      [ -n "$(ls -A out)" ]; then
      echo "$cmd: exit $status, $(cat run.err), left: $(ls -A out)" >&2
      ok=1
    fi
  done
  return $ok
}
check regression_truncated_input_dies_of_sigbus regression_truncated_input_dies_of_sigbus

finish
