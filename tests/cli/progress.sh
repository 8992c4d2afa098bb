#!/usr/bin/env bash
# The progress bar: drawn on a terminal (a pseudo-terminal made by script(1)), never
# when stderr is a file or a pipe, and silenced by -q. It never touches stdout's data.
source "$(dirname "$0")/common.bash"
zoo=$TESTDATA/zoo.gguf
# script(1) (bsdutils, from scripts/setup) makes the terminal; without it the test fails.
command -v script >/dev/null || { echo "FAIL: script(1) not found (scripts/setup installs bsdutils)" >&2; exit 1; }
total=$("$PYTHON" -c "
import json; m = json.load(open('$TESTDATA/manifest.json'))['files']['zoo.gguf']
print(round(sum(t['nbytes'] for t in m['tensors']) / 1024, 1))")

script -qc "'$ONNXQ' export '$zoo' -o '$WORK/tty.safetensors'" /dev/null >"$WORK/tty.txt"
check "export draws a bar with total, rate and ETA on a terminal" \
  grep -q "export \[.*\] .*% .* / $total KiB .*/s  ETA" "$WORK/tty.txt"
script -qc "'$ONNXQ' stats '$zoo' --filter 'q4_*'" /dev/null >"$WORK/tty_stats.txt"
check "stats draws a bar on a terminal" grep -q "ETA" "$WORK/tty_stats.txt"
script -qc "'$ONNXQ' dequant '$zoo' --all -o '$WORK/dq/'" /dev/null >"$WORK/tty_dq.txt"
check "dequant --all draws a bar on a terminal" grep -q "dequant \[.*\] .* / $total KiB .*ETA" "$WORK/tty_dq.txt"
script -qc "'$ONNXQ' conformance '$TESTDATA/onnx-node' --filter '*unsqueeze*'" /dev/null >"$WORK/tty_conf.txt"
check "conformance counts cases on a terminal" grep -q "conformance \[.*\] .*% 0 / 8 cases" "$WORK/tty_conf.txt"
"$ONNXQ" conformance "$TESTDATA/onnx-node" --filter '*unsqueeze*' >"$WORK/conf.txt" 2>"$WORK/conf_err.txt"
check "conformance: no bar in a file, one line per case" \
  bash -c "test ! -s '$WORK/conf_err.txt' && [ \$(grep -c '^PASS ' '$WORK/conf.txt') -eq 8 ]"
script -qc "'$ONNXQ' -q export '$zoo' -o '$WORK/quiet.safetensors'" /dev/null >"$WORK/quiet.txt"
check "-q silences the bar" bash -c "! grep -q ETA '$WORK/quiet.txt'"

"$ONNXQ" export "$zoo" -o "$WORK/file.safetensors" 2>"$WORK/stderr.txt"
check "no bar when stderr is a file" test ! -s "$WORK/stderr.txt"
"$ONNXQ" stats "$zoo" 2>&1 >/dev/null | cat >"$WORK/pipe.txt"
check "no bar when stderr is a pipe" test ! -s "$WORK/pipe.txt"
check "the terminal run wrote the same file" cmp -s "$WORK/tty.safetensors" "$WORK/file.safetensors"
finish
