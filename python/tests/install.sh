#!/usr/bin/env bash
# pip installs onnxq from the source tree, offline, into a new venv (--system-site-packages, for
# Debian's numpy), as README says; python imports it from there, outside the tree, and decodes a
# tensor. setup.py reuses this CMake build's extension (ONNXQ_BUILD_DIR), so nothing is compiled
# twice. The environment comes from python/tests/tests.cmake: ONNXQ_PYTHON, ONNXQ_BUILD_DIR,
# ONNXQ_TESTDATA_DIR, ONNXQ_PYTHON_PRELOAD (the ASan runtime, for the import only).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset PYTHONPATH  # the installed package, not the build tree's

# setuptools' folder from an earlier run would hand pip a stale extension
rm -rf "$ONNXQ_BUILD_DIR/setuptools"
"$ONNXQ_PYTHON" -m venv --system-site-packages "$work/venv"
ONNXQ_BUILD_DIR=$ONNXQ_BUILD_DIR "$work/venv/bin/python" -m pip install --no-build-isolation --no-index \
  --disable-pip-version-check -q "$src" >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; fail "pip install"; }

site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for f in __init__.py quants.py __init__.pyi quants.pyi py.typed; do
  [ -f "$site/onnxq/$f" ] || fail "not installed: onnxq/$f"
done
ls "$site"/onnxq/_onnxq*.so >/dev/null || fail "the extension is not installed"
cmp -s "$site"/onnxq/_onnxq*.so "$ONNXQ_BUILD_DIR"/python/onnxq/_onnxq*.so || fail "the installed extension is not this build's"
# setuptools' files stay in the build folder, none in the source tree
# (setuptools' defaults would be <src>/*.egg-info, <src>/python/*.egg-info, <src>/build/{lib,bdist}.*)
for stray in "$src"/*.egg-info "$src"/python/*.egg-info "$src"/build/lib.* "$src"/build/bdist.*; do
  [ ! -e "$stray" ] || fail "pip left $stray in the source tree"
done
[ -d "$ONNXQ_BUILD_DIR/setuptools" ] || fail "setuptools did not work in $ONNXQ_BUILD_DIR/setuptools"

cd "$work"
LD_PRELOAD=${ONNXQ_PYTHON_PRELOAD:-} "$work/venv/bin/python" - "$ONNXQ_TESTDATA_DIR" "$site" <<'PY' || fail "the installed module"
import sys
import numpy as np
import onnxq
from onnxq import quants
testdata, site = sys.argv[1:3]
assert onnxq.__file__.startswith(site), onnxq.__file__
with onnxq.open(f"{testdata}/zoo.gguf") as m:
    t = m["q4_k.weight"]
    want = np.load(f"{testdata}/gguf/expected/q4_k.weight.f32.npy")
    assert np.array_equal(t.numpy().view(np.uint32), want.view(np.uint32))
    assert np.array_equal(quants.dequantize(t.raw(), t.ggml_type).view(np.uint32), want.view(np.uint32))
print("installed onnxq", onnxq.__version__, "works")
PY
"$work/venv/bin/python" -m pip uninstall -y -q onnxq || fail "pip uninstall"
"$work/venv/bin/python" -c 'import onnxq' 2>/dev/null && fail "onnxq still importable after uninstall"
echo "python install test passed"
