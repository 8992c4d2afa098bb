# Shared helpers for the CLI tests (sourced, not run: it has no test of its own).
set -euo pipefail
: "${ONNXQ:?path to the onnxq binary}" "${TESTDATA:?path to testdata}"
PYTHON=${PYTHON:-/usr/bin/python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fails=0
passes=0

# check NAME CONDITION...: runs the condition, counts and reports.
check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name" >&2; fails=$((fails + 1)); fi
}

# expect_exit CODE CMD...: the command exits with CODE.
expect_exit() {
  local want=$1
  shift
  local got=0
  "$@" >"$WORK/out" 2>"$WORK/err" || got=$?
  if [ "$got" != "$want" ]; then
    echo "expected exit $want, got $got: $*" >&2
    sed 's/^/  stderr: /' "$WORK/err" >&2
    return 1
  fi
}

finish() {
  echo "$passes passed, $fails failed"
  [ "$fails" -eq 0 ]
}
