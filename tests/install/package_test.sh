#!/usr/bin/env bash
# Builds the Debian packages from a build folder with cpack (as scripts/package does), unpacks them
# into a scratch root with dpkg -x, and uses them from there: `onnxq --version`, a command that
# needs the onnxq-onnx helper, `man -l` on the installed page, and a program compiled and linked
# against the library package through its pkg-config file. Also checks names, fields and contents.
#   package_test.sh BUILD_DIR VERSION CONSUMER_SOURCE_DIR [SANITIZERS]
set -euo pipefail
build=$(cd "$1" && pwd) version=$2 consumer=$3
sanitize=()
[ -n "${4:-}" ] && sanitize=("-fsanitize=$4")
testdata=$(cd "$(dirname "$0")/../../testdata" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; echo "FAIL: cpack" >&2; exit 1; }
arch=$(dpkg --print-architecture)
tool=$work/out/onnxq_${version}_${arch}.deb
dev=$work/out/libonnxq-dev_${version}_${arch}.deb
for deb in "$tool" "$dev"; do [ -f "$deb" ] || { ls "$work/out" >&2; echo "FAIL: no $(basename "$deb")" >&2; exit 1; }; done

field() { dpkg-deb --field "$1" "$2"; }
[ "$(field "$tool" Package)" = onnxq ] || fail "tool package name: $(field "$tool" Package)"
[ "$(field "$tool" Version)" = "$version" ] || fail "tool package version: $(field "$tool" Version)"
[ "$(field "$dev" Package)" = libonnxq-dev ] || fail "library package name: $(field "$dev" Package)"
# dpkg-shlibdeps ran on the programs: libc for both, protobuf and ONNX for onnxq-onnx.
depends=$(field "$tool" Depends)
for lib in libc6 libprotobuf libonnx1; do
  grep -q "\b$lib" <<<"$depends" || fail "the tool's Depends lacks $lib: $depends"
done
grep -q libcurl4 <<<"$(field "$tool" Recommends)" || fail "the tool does not recommend libcurl4"
for lib in libprotobuf-dev libonnx-dev; do
  grep -q "$lib" <<<"$(field "$dev" Depends)" || fail "the library package's Depends lacks $lib"
done
# Every file under /usr, none of the build or source tree, nothing in the wrong package.
for deb in "$tool" "$dev"; do dpkg-deb --contents "$deb"; done | awk '{print $6}' | sed 's|^\./||' >"$work/files"
grep -v '^usr/' "$work/files" | grep . && fail "files outside /usr"
dpkg-deb --contents "$tool" | grep -q 'include/\|\.a$\|pkgconfig' && fail "library files in the tool package"
dpkg-deb --contents "$dev" | grep -q 'bin/onnxq\|man1' && fail "tool files in the library package"

root=$work/root
dpkg -x "$tool" "$root"
dpkg -x "$dev" "$root"
for f in usr/bin/onnxq usr/libexec/onnxq/onnxq-onnx usr/share/man/man1/onnxq.1 \
         usr/share/bash-completion/completions/onnxq usr/share/zsh/site-functions/_onnxq \
         usr/share/doc/onnxq/copyright usr/share/doc/libonnxq-dev/copyright \
         usr/include/onnxq/ops/dequantize_packed.hpp usr/lib/libonnxq.a \
         usr/lib/cmake/onnxq/onnxqConfig.cmake usr/lib/pkgconfig/onnxq.pc; do
  [ -f "$root/$f" ] || fail "not in the packages: /$f"
done
if grep -rqF "$build" "$root/usr/lib/cmake" "$root/usr/lib/pkgconfig"; then fail "package files name the build tree"; fi
grep -qx 'License: MIT' "$root/usr/share/doc/onnxq/copyright" || fail "copyright file without License: MIT"
grep -q 'Permission is hereby granted' "$root/usr/share/doc/onnxq/copyright" || fail "copyright file without the licence text"
grep -qx 'License: MIT' "$root/usr/lib/pkgconfig/onnxq.pc" || fail "onnxq.pc without License: MIT"

# The installed tool, from the scratch root (the build tree's programs are not on the way).
got=$("$root/usr/bin/onnxq" --version) || fail "onnxq --version exits non-zero"
[ "$got" = "onnxq $version" ] || fail "onnxq --version prints '$got', the package is $version"
"$root/usr/bin/onnxq" info "$testdata/zoo.gguf" >"$work/info.out" || fail "the installed onnxq cannot run info"
"$root/usr/bin/onnxq" conformance "$testdata/onnx-node" --filter test_unpack_3bit >"$work/conformance.out" ||
  fail "the installed onnxq cannot run conformance (onnxq-onnx not found?)"
grep -qx '1 passed, 0 failed, 0 skipped' "$work/conformance.out" || fail "the installed conformance report is wrong"
MANWIDTH=100 man -l "$root/usr/share/man/man1/onnxq.1" >"$work/man.txt" 2>"$work/man.err" ||
  { cat "$work/man.err" >&2; fail "man -l exits non-zero"; }
grep -q '^NAME' "$work/man.txt" && grep -q 'onnxq info' "$work/man.txt" || fail "man -l does not render the page"
[ -s "$work/man.err" ] && { cat "$work/man.err" >&2; fail "man -l warns"; }

# A program built against the unpacked library package (its .pc file is relocatable).
export PKG_CONFIG_PATH=$root/usr/lib/pkgconfig
# shellcheck disable=SC2046
${CXX:-c++} "${sanitize[@]}" -o "$work/consumer" "$consumer/main.cpp" $(pkg-config --cflags onnxq) \
  $(pkg-config --libs --static onnxq) || fail "cannot build against the library package"
[ -x "$work/consumer" ] && { "$work/consumer" >/dev/null || fail "the program built against the package fails"; }

[ "$fails" -eq 0 ] || exit 1
echo "package test passed: $(basename "$tool") $(basename "$dev")"
