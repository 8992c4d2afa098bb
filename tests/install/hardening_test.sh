#!/usr/bin/env bash
# The build is hardened as Debian's own packages are (cmake/hardening.cmake): Debian's
# hardening-check (devscripts) finds PIE, stack protection, fortified functions, read-only
# relocations and immediate binding in the tool, the ONNX helper and the Python extension, and
# stack protection and fortified functions in the static library; readelf shows the executables
# as PIE with BIND_NOW, and stack-clash probes in the tool.
# Control-flow protection (CET) is not required: Debian 12's own start files (Scrt1.o, crti.o)
# carry no IBT/SHSTK note, so no program linked on it can have one.
#   hardening_test.sh BUILD_DIR
set -euo pipefail
build=$1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
command -v hardening-check >/dev/null || { echo "FAIL: hardening-check is missing: run scripts/setup --test" >&2; exit 1; }

files=("$build/onnxq" "$build/onnxq-onnx" "$build/lib/libonnxq.a")
if grep -qx 'ONNXQ_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  files+=("$(find "$build/python/onnxq" -name '_onnxq*.so' -print -quit)")
fi
for f in "${files[@]}"; do
  [ -f "$f" ] || { fail "${f:-the Python extension} is not built"; continue; }
  if ! report=$(hardening-check --nocfprotection "$f" 2>&1); then
    fail "hardening-check refuses $f:
$report"
  fi
  # hardening-check passes an object or archive on what it can see; these two must be seen.
  for property in 'Stack protected' 'Fortify Source functions'; do
    grep -q "^ $property: yes" <<<"$report" || fail "$f:$(grep "^ $property:" <<<"$report")"
  done
done

for exe in "$build/onnxq" "$build/onnxq-onnx"; do
  [ -f "$exe" ] || continue
  headers=$(readelf --file-header --dynamic "$exe")
  grep -q 'Type: *DYN (Position-Independent Executable file)' <<<"$headers" || fail "$exe is not a PIE"
  grep -q '(FLAGS) *BIND_NOW' <<<"$headers" || fail "$exe: no BIND_NOW"
  grep -q '(FLAGS_1) *Flags: NOW PIE' <<<"$headers" || fail "$exe: FLAGS_1 is not NOW PIE"
  grep -q GNU_RELRO <<<"$(readelf --program-headers "$exe")" || fail "$exe: no RELRO segment"
done
# hardening-check knows the probes' x86 instructions only.
if [ "$(uname -m)" = x86_64 ]; then
  grep -q '^ Stack clash protection: yes' <<<"$(hardening-check "$build/onnxq" 2>&1)" ||
    fail "$build/onnxq: no stack-clash probes"
fi

[ "$fails" = 0 ] || exit 1
echo "hardened: ${files[*]}"
