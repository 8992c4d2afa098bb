#!/usr/bin/env bash
# >= 2,000 deterministic mutations of testdata files through `onnxq list` and `onnxq dequant --all`
# (plus .npy and .pb inputs): every run ends with 0/2/3 in bounded time, never a signal.
source "$(dirname "$0")/common.bash"
"$PYTHON" "$(dirname "$0")/mutations.py" "$ONNXQ" "$TESTDATA" "$WORK" "${MUTATION_GGUF_COUNT:-2000}"
