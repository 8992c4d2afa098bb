# onnxq formats --isa: the decoders' SIMD path and ONNXQ_ISA forcing (bit-exactness across paths: tests/unit/simd/cross_path_test.cpp).
source "$(dirname "$0")/common.bash"

supported() { "$ONNXQ" formats --isa --json | "$PYTHON" -c 'import json,sys; print(" ".join(json.load(sys.stdin)["supported_isas"]))'; }
paths=$(supported)

check "scalar is always supported" bash -c "[[ ' $paths ' == *' scalar '* ]]"
for p in $paths; do
  check "ONNXQ_ISA=$p is reported as active" bash -c "ONNXQ_ISA=$p '$ONNXQ' formats --isa | grep -qx 'active isa: $p'"
done
check "an unknown ONNXQ_ISA is an invalid-input error" expect_exit 2 env ONNXQ_ISA=sse9 "$ONNXQ" formats --isa
check "the error names the variable" grep -q "ONNXQ_ISA" "$WORK/err"
for p in avx2 avx512 avx512vbmi; do
  if [[ " $paths " != *" $p "* ]]; then
    check "ONNXQ_ISA=$p on a CPU without it fails" expect_exit 2 env ONNXQ_ISA=$p "$ONNXQ" formats --isa
  fi
done

finish
