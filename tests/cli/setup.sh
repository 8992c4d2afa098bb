#!/usr/bin/env bash
# scripts/setup with stand-ins for dpkg-query, apt-get and sudo (tests/cli/setup_stubs.bash): it
# installs only what is missing, keeps apt-get's progress out of the terminal (in the log it names),
# shows the log's end when apt-get fails, and installs for --python what the Python module needs and
# nothing of the test tool chain.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.bash"
source "$here/setup_stubs.bash"
setup=$here/../../scripts/setup
export STUB_INSTALLED=$WORK/installed STUB_CALLS=$WORK/calls BUILD_DIR=$WORK/build
make_setup_stubs "$WORK/bin"
export PATH=$WORK/bin:$PATH

# run_setup ARGS...: scripts/setup with the stubs; its stdout, stderr and exit code in $WORK.
run_setup() {
  rm -f "$STUB_CALLS"
  : >"$STUB_CALLS"
  local code=0
  bash "$setup" "$@" >"$WORK/out" 2>"$WORK/err" || code=$?
  echo "$code" >"$WORK/code"
}
# installed_list: the packages of the apt-get install call, one a line, sorted.
installed_list() { { grep '^install ' "$STUB_CALLS" || true; } | tr ' ' '\n' | { grep -v '^-\|^install$' || true; } | sort; }
not_grep() { ! grep -q "$@"; }
tool=(build-essential cmake ninja-build pkg-config libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
      libprotobuf-dev libonnx-dev libcurl4-openssl-dev libxxhash-dev libssl-dev)

# Everything in place: nothing said, nothing called, no log.
printf '%s\n' "${tool[@]}" >"$STUB_INSTALLED"
run_setup
check "all in place: exit 0" test "$(cat "$WORK/code")" = 0
check "all in place: silent" test ! -s "$WORK/out" -a ! -s "$WORK/err"
check "all in place: apt-get not called" test ! -s "$STUB_CALLS"
check "all in place: no log" test ! -e "$BUILD_DIR/setup.log"

# Two missing: one line on stderr naming them and the log, nothing on stdout, progress in the log.
printf '%s\n' "${tool[@]}" | grep -vx 'cmake\|libxxhash-dev' >"$STUB_INSTALLED"
run_setup
check "two missing: exit 0" test "$(cat "$WORK/code")" = 0
check "two missing: nothing on stdout" test ! -s "$WORK/out"
check "two missing: one line on stderr" test "$(wc -l <"$WORK/err")" = 1
check "two missing: stderr names them and the log" \
  grep -qxF "scripts/setup: installing cmake libxxhash-dev (apt-get's output: $BUILD_DIR/setup.log)" "$WORK/err"
check "two missing: apt-get update, then install of exactly those" \
  test "$(cut -d' ' -f1 "$STUB_CALLS" | tr '\n' ' ')" = "update install " -a \
       "$(installed_list | tr '\n' ' ')" = "cmake libxxhash-dev "
check "two missing: the progress is in the log" grep -q 'Reading database ... 100%' "$BUILD_DIR/setup.log"
check "two missing: the log has the install's lines" grep -q 'Unpacking libxxhash-dev' "$BUILD_DIR/setup.log"

# SETUP_LOG chooses the file.
SETUP_LOG=$WORK/elsewhere/apt.log run_setup
check "SETUP_LOG: the log is there" grep -q 'Setting up cmake' "$WORK/elsewhere/apt.log"
check "SETUP_LOG: stderr names it" grep -qF "(apt-get's output: $WORK/elsewhere/apt.log)" "$WORK/err"

# apt-get fails (with every package missing, so that the log is long): exit 1, where the log is, and
# its last lines, the error among them, on stderr.
: >"$STUB_INSTALLED"
STUB_APT_FAIL=1 run_setup --python
check "apt-get fails: exit 1" test "$(cat "$WORK/code")" = 1
check "apt-get fails: nothing on stdout" test ! -s "$WORK/out"
check "apt-get fails: stderr says so" grep -qxF "scripts/setup: apt-get failed; the end of $BUILD_DIR/setup.log:" "$WORK/err"
check "apt-get fails: stderr shows the error" grep -qx 'E: Sub-process /usr/bin/dpkg returned an error code (1)' "$WORK/err"
check "apt-get fails: the log is longer than what stderr shows" test "$(wc -l <"$BUILD_DIR/setup.log")" -gt 40
check "apt-get fails: stderr shows the log's end, not all of it" \
  test "$(wc -l <"$WORK/err")" -le 17 -a "$(grep -c 'Setting up' "$WORK/err")" -ge 1
check "apt-get fails: not the log's beginning" not_grep 'Hit:1' "$WORK/err"

# --python on a machine with nothing: the tool's packages and the module's, none of the tests'.
: >"$STUB_INSTALLED"
run_setup --python
installed_list >"$WORK/python.list"
check "--python: exit 0" test "$(cat "$WORK/code")" = 0
for p in "${tool[@]}" python3-dev python3-pybind11 pybind11-dev python3-numpy python3-venv python3-pip \
         python3-setuptools python3-wheel; do
  check "--python installs $p" grep -qxF "$p" "$WORK/python.list"
done
check "--python installs nothing else" test "$(wc -l <"$WORK/python.list")" = $((${#tool[@]} + 8))
run_setup
installed_list >"$WORK/tool.list"
check "plain set-up installs the tool's packages alone" \
  test "$(tr '\n' ' ' <"$WORK/tool.list")" = "$(printf '%s\n' "${tool[@]}" | sort | tr '\n' ' ')"
run_setup --test
installed_list >"$WORK/test.list"
check "--test installs what --python does, and more" \
  test -z "$(comm -23 "$WORK/python.list" "$WORK/test.list")" -a "$(wc -l <"$WORK/test.list")" -gt "$(wc -l <"$WORK/python.list")"
for p in clang zsh libgtest-dev python3-pytest chromium nodejs; do
  check "--test installs $p" grep -qxF "$p" "$WORK/test.list"
done

# --test in a tree without the browser tests' npm packages: npm ci in tests/browser, said on stderr;
# with them in place (the version package-lock.json pins), npm is not called.
repo=$WORK/repo
mkdir -p "$repo/scripts" "$repo/tests/browser"
cp "$setup" "$repo/scripts/setup"
cp "$here/../browser/package-lock.json" "$repo/tests/browser/"
printf '%s\n' "${tool[@]}" >"$STUB_INSTALLED"
cat "$WORK/test.list" >>"$STUB_INSTALLED"
rm -f "$STUB_CALLS"; : >"$STUB_CALLS"
code=0; bash "$repo/scripts/setup" --test >"$WORK/out" 2>"$WORK/err" || code=$?
check "--test without node_modules: exit 0" test "$code" = 0
check "--test without node_modules: npm ci" grep -qx 'npm ci --ignore-scripts --no-audit --no-fund' "$STUB_CALLS"
check "--test without node_modules: said on stderr" grep -q '^scripts/setup: installing playwright-core [0-9.]* into tests/browser/node_modules' "$WORK/err"
mkdir -p "$repo/tests/browser/node_modules/playwright-core"
cp "$here/../browser/node_modules/playwright-core/package.json" "$repo/tests/browser/node_modules/playwright-core/" 2>/dev/null ||
  sed -n '/"node_modules\/playwright-core"/,/}/s/.*"version": "\(.*\)".*/{\n  "version": "\1"\n}/p' \
    "$repo/tests/browser/package-lock.json" >"$repo/tests/browser/node_modules/playwright-core/package.json"
rm -f "$STUB_CALLS"; : >"$STUB_CALLS"
code=0; bash "$repo/scripts/setup" --test >"$WORK/out" 2>"$WORK/err" || code=$?
check "--test with node_modules in place: exit 0, silent" test "$code" = 0 -a ! -s "$WORK/err"
check "--test with node_modules in place: npm not called" test ! -s "$STUB_CALLS"

# A wrong argument: the usage, exit 1, nothing installed.
run_setup --tests
check "bad argument: exit 1" test "$(cat "$WORK/code")" = 1
check "bad argument: usage" grep -qxF 'usage: scripts/setup [--python | --test]' "$WORK/err"
check "bad argument: apt-get not called" test ! -s "$STUB_CALLS"
finish
