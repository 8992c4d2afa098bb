#!/usr/bin/env bash
# scripts/package on a machine set up for the tool alone, where CMake cannot find pybind11 (hidden
# here with CMAKE_DISABLE_FIND_PACKAGE_pybind11, from a toolchain file named by the environment), in
# both orders a newcomer might use, each in a new build folder:
#   A. scripts/setup, then scripts/package;
#   B. scripts/run, then scripts/package in the folder scripts/run made.
# Each must make both packages. Order B also checks what scripts/run prints: the file's listing alone
# on standard output, one line per stage on standard error. apt-get and sudo are stand-ins that
# record any call (tests/cli/setup_stubs.bash): nothing may be installed, so the machine must already
# have the tool's packages (scripts/setup).
#   fresh_setup_test.sh SOURCE_DIR VERSION
set -euo pipefail
source=$(cd "$1" && pwd) version=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
source "$source/tests/cli/setup_stubs.bash"
export STUB_CALLS=$work/apt-calls
: >"$STUB_CALLS"
make_setup_stubs "$work/bin"
export PATH=$work/bin:$PATH
echo 'set(CMAKE_DISABLE_FIND_PACKAGE_pybind11 ON)' >"$work/hide_pybind11.cmake"
export CMAKE_TOOLCHAIN_FILE=$work/hide_pybind11.cmake
arch=$(dpkg --print-architecture)
# Both orders build in the same path, one after the other, through ccache (scripts/setup --test
# installs it; scripts/build uses it) with a cache of this run's own: the first order compiles
# everything, the second is served from the cache. So the test costs one build of the tool, not
# two, and the same on a new machine as on one that ran it before.
build=$work/build
command -v ccache >/dev/null || { echo "FAIL: ccache is missing: run scripts/setup --test" >&2; exit 1; }
export CCACHE_DIR=$work/ccache CCACHE_BASEDIR=$work

# The premise: with the toolchain file, configuring the Python module fails on pybind11.
if cmake -S "$source" -B "$work/premise" -DONNXQ_BUILD_PYTHON=ON -DONNXQ_BUILD_TESTS=OFF \
     -DONNXQ_BUILD_BENCH=OFF >"$work/premise.log" 2>&1; then
  echo "FAIL: pybind11 is not hidden: the Python module configures" >&2
  exit 1
fi
grep -q 'CMAKE_DISABLE_FIND_PACKAGE_pybind11' "$work/premise.log" ||
  { tail -n 20 "$work/premise.log" >&2; echo "FAIL: configuring the Python module failed, not on pybind11" >&2; exit 1; }

# package ORDER: scripts/package into $work/ORDER, checked.
package() {
  local order=$1 code=0
  OUT_DIR=$work/$order BUILD_DIR=$build bash "$source/scripts/package" >"$work/$order.out" 2>"$work/$order.err" || code=$?
  if [ "$code" != 0 ]; then
    tail -n 30 "$work/$order.err" >&2
    fail "order $order: scripts/package exits $code"
    return
  fi
  local deb
  for deb in onnxq_${version}_${arch}.deb libonnxq-dev_${version}_${arch}.deb; do
    [ -f "$work/$order/$deb" ] || fail "order $order: no $deb"
    grep -qxF "$work/$order/$deb" "$work/$order.out" || fail "order $order: scripts/package does not name $deb"
  done
  [ "$(dpkg-deb --field "$work/$order/onnxq_${version}_${arch}.deb" Package)" = onnxq ] ||
    fail "order $order: the tool package is not named onnxq"
  grep -qx 'ONNXQ_BUILD_PYTHON:BOOL=OFF' "$build/CMakeCache.txt" ||
    fail "order $order: the build folder is configured with the Python module"
}

# A. scripts/setup, then scripts/package.
code=0
BUILD_DIR=$build bash "$source/scripts/setup" >"$work/setup.out" 2>"$work/setup.err" || code=$?
[ "$code" = 0 ] || { cat "$work/setup.err" >&2; fail "order A: scripts/setup exits $code"; }
[ -s "$work/setup.out" ] && fail "order A: scripts/setup prints on stdout: $(head -n 3 "$work/setup.out")"
package A
rm -rf "$build"

# B. scripts/run, then scripts/package.
code=0
BUILD_DIR=$build bash "$source/scripts/run" >"$work/run.out" 2>"$work/run.err" || code=$?
if [ "$code" != 0 ]; then
  tail -n 30 "$work/run.err" >&2
  fail "order B: scripts/run exits $code"
else
  (cd "$source" && "$build/onnxq" info testdata/zoo.gguf && echo && "$build/onnxq" list testdata/zoo.gguf) >"$work/listing"
  cmp -s "$work/listing" "$work/run.out" ||
    { diff "$work/listing" "$work/run.out" | head -n 10 >&2 || true; fail "order B: scripts/run's stdout is not the file's listing alone"; }
  [ "$(wc -l <"$work/run.err")" = 3 ] || { cat "$work/run.err" >&2; fail "order B: scripts/run's stderr is not 3 lines"; }
  grep -v '^scripts/run: ' "$work/run.err" >&2 && fail "order B: scripts/run's stderr has lines of no stage"
  grep -q "^scripts/run: building the tool in $build/ (output: $build/build.log)\$" "$work/run.err" ||
    fail "order B: scripts/run does not name its build log"
  grep -q 'Linking CXX executable onnxq$' "$build/build.log" || fail "order B: the build's output is not in build.log"
fi
package B

[ -s "$STUB_CALLS" ] && fail "set-up called apt-get (install the tool's packages first, scripts/setup): $(cat "$STUB_CALLS")"
[ "$fails" -eq 0 ] || exit 1
echo "fresh set-up test passed: scripts/package after scripts/setup and after scripts/run, pybind11 hidden"
