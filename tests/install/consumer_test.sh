#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a one-file project against it,
# through find_package(onnxq) and through pkg-config, then runs both. Also checks the
# installed man page and completions.
#   consumer_test.sh BUILD_DIR CONSUMER_SOURCE_DIR [SANITIZERS]
# A sanitized libonnxq.a (ONNXQ_SANITIZE) needs the consumer built with the same -fsanitize.
set -euo pipefail
build=$1 src=$2
sanitize=()
[ -n "${3:-}" ] && sanitize=("-fsanitize=$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

for f in bin/onnxq libexec/onnxq/onnxq-onnx share/man/man1/onnxq.1 share/bash-completion/completions/onnxq share/zsh/site-functions/_onnxq \
         include/onnxq/decode/decode_blocks.hpp include/onnxq/ops/dequantize_packed.hpp; do
  [ -f "$prefix/$f" ] || { echo "FAIL: not installed: $f" >&2; exit 1; }
done
# The installed onnxq finds the installed onnxq-onnx for the ONNX commands (the build tree is gone).
testdata=$(cd "$(dirname "$0")/../../testdata" && pwd)
"$prefix/bin/onnxq" conformance "$testdata/onnx-node" --filter test_unpack_3bit >"$work/conformance.out" ||
  { echo "FAIL: the installed onnxq cannot run conformance" >&2; exit 1; }
grep -qx '1 passed, 0 failed, 0 skipped' "$work/conformance.out" ||
  { echo "FAIL: the installed conformance report is wrong" >&2; exit 1; }
libdir=$(dirname "$(find "$prefix" -name libonnxq.a | head -1)")
[ -f "$libdir/libonnxq.a" ] && [ -f "$libdir/cmake/onnxq/onnxqConfig.cmake" ] && [ -f "$libdir/pkgconfig/onnxq.pc" ] ||
  { echo "FAIL: library, CMake package or pkg-config file missing" >&2; exit 1; }
# Nothing that belongs to the build tree may leak into the installed package.
if grep -rq "$(cd "$build" && pwd)\|/work/main/lib" "$libdir/cmake/onnxq" "$libdir/pkgconfig"; then
  echo "FAIL: installed package files refer to the build or source tree" >&2
  exit 1
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$work/build" "${generator[@]}" "${launcher[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="${sanitize[*]}" -DCMAKE_EXE_LINKER_FLAGS="${sanitize[*]}" \
  >"$work/configure.log" || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" >"$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
"$work/build/consumer"

# pkg-config comes from scripts/setup: without it this fails (set -e) rather than skipping.
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
${CXX:-c++} "${sanitize[@]}" -o "$work/consumer_pc" "$src/main.cpp" $(pkg-config --cflags onnxq) $(pkg-config --libs --static onnxq)
"$work/consumer_pc"

# README's C++ example, as printed there, built against the installed package and run on the zoo
# model: its tensor list and the first tensor's first value.
sed -n '/^<!-- onnxq:cpp-example -->$/,/^<!-- \/onnxq:cpp-example -->$/p' "$(dirname "$0")/../../README.md" |
  sed '/^<!--/d; /^```/d' >"$work/readme_example.cpp"
[ "$(wc -l <"$work/readme_example.cpp")" -gt 10 ] || { echo "FAIL: README.md has no onnxq:cpp-example block" >&2; exit 1; }
# shellcheck disable=SC2046
${CXX:-c++} -std=c++20 "${sanitize[@]}" -o "$work/readme_example" "$work/readme_example.cpp" \
  $(pkg-config --cflags onnxq) $(pkg-config --libs --static onnxq)
"$work/readme_example" "$testdata/zoo.gguf" >"$work/readme_example.out"
[ "$(grep -c ' values$' "$work/readme_example.out")" = "$("$prefix/bin/onnxq" list "$testdata/zoo.gguf" --json |
  /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" ] ||
  { echo "FAIL: README's example lists other tensors:" >&2; cat "$work/readme_example.out" >&2; exit 1; }
want=$(/usr/bin/python3 -c '
import json, sys, numpy as np
t = json.load(open(sys.argv[1] + "/manifest.json"))["files"]["zoo.gguf"]["tensors"][0]
print("%s[0] = %g" % (t["name"], np.load(sys.argv[1] + "/gguf/" + t["expected"]).reshape(-1)[0]))' "$testdata")
[ "$(tail -1 "$work/readme_example.out")" = "$want" ] ||
  { echo "FAIL: README's example printed '$(tail -1 "$work/readme_example.out")', expected '$want'" >&2; exit 1; }
echo "install consumer test passed"
