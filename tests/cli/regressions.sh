#!/usr/bin/env bash
# One test per bug found (issue 22 onwards), each named after the bug it guards against.
source "$(dirname "$0")/common.bash"
TOOLS=$(cd "$(dirname "$0")" && pwd)
cd "$WORK"
ZOO=$TESTDATA/zoo.gguf

# closed WANT FDS CMD...: CMD exits with WANT when run with the descriptors FDS (0, 1, 2, 02 or 012)
# closed; what stays open goes to $WORK/out and $WORK/err.
closed() {
  local want=$1 fds=$2 got=0
  shift 2
  case $fds in
    0) "$@" <&- >"$WORK/out" 2>"$WORK/err" || got=$? ;;
    1) "$@" >&- 2>"$WORK/err" || got=$? ;;
    2) "$@" >"$WORK/out" 2>&- || got=$? ;;
    02) "$@" <&- >"$WORK/out" 2>&- || got=$? ;;
    012) "$@" <&- >&- 2>&- || got=$? ;;
  esac
  [ "$got" = "$want" ] || { echo "expected exit $want, got $got with $fds closed: $*" >&2; return 1; }
}

# dequant -o x.npy with stdout closed exited 0 without x.npy and left .x.npy.onnxq-XXXXXX: the
# temporary got descriptor 1, which the sink took for standard output.
regression_closed_stdout_leaves_temp() {
  mkdir closed && cd closed || return 1
  closed 0 1 "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight -o x.npy || return 1
  "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight -o ../ref.npy || return 1
  cmp -s x.npy ../ref.npy && [ "$(ls -A)" = x.npy ]
  local ok=$?
  cd .. && return $ok
}
check regression_closed_stdout_leaves_temp regression_closed_stdout_leaves_temp

# Closed descriptors 0 and 2 too: an output file never takes a standard stream's number. With
# stderr closed the output took descriptor 2, and -vv's log lines went into the file.
regression_closed_stderr_logs_into_output() {
  rm -rf closed02 && mkdir closed02
  "$ONNXQ" export "$ZOO" -o ref.safetensors || return 1
  for fds in 0 2 02 012; do
    closed 0 $fds "$ONNXQ" -vv export "$ZOO" -o closed02/x.safetensors || return 1
    cmp -s closed02/x.safetensors ref.safetensors && [ "$(ls -A closed02)" = x.safetensors ] || return 1
  done
  # Reading a closed stdin is still the error it was (not an empty /dev/null).
  closed 3 0 "$ONNXQ" unsqueeze - --axes 0 -o closed02/y.npy || return 1
  grep -q "Bad file descriptor" "$WORK/err" && [ ! -e closed02/y.npy ]
}
check regression_closed_stderr_logs_into_output regression_closed_stderr_logs_into_output

# `list >&-` said "cannot write standard output" without the reason; binary output asked for on a
# closed stdout must fail too (exit 3), not vanish into /dev/null.
regression_closed_stdout_error_has_no_reason() {
  closed 3 1 "$ONNXQ" list "$ZOO" || return 1
  grep -qx "onnxq: error: cannot write standard output: Bad file descriptor" "$WORK/err" || return 1
  closed 3 1 "$ONNXQ" dequant "$ZOO" --tensor q4_0.weight -o - || return 1
  grep -q "cannot write standard output: Bad file descriptor" "$WORK/err"
}
check regression_closed_stdout_error_has_no_reason regression_closed_stdout_error_has_no_reason

# An input truncated while it was read (a download still running, a converter rewriting it) killed
# the command with SIGBUS (exit 135) and left its temporary. Each command that reads tensor data is
# stopped once it has mapped the file, the file is cut to its header, and the command continued:
# an I/O error naming the file, exit 3, nothing written.
regression_truncated_input_dies_of_sigbus() {
  "$PYTHON" "$TOOLS/fault_tool.py" big-gguf big.gguf 96 || return 1
  cp big.gguf other.gguf
  local cmd status ok=0
  for cmd in "dequant run.gguf --tensor big.weight --dtype f16 -o outs/t.npy" \
    "dequant run.gguf --tensor big.weight --dtype f16 --threads 2 -o outs/t.npy" \
    "export run.gguf --dtype f16 -o outs/t.safetensors" "stats run.gguf" "hash --sha256 run.gguf" \
    "diff run.gguf other.gguf"; do
    rm -rf outs run.gguf && mkdir outs && cp --sparse=always big.gguf run.gguf
    status=0
    "$PYTHON" "$TOOLS/fault_tool.py" cut-when-mapped run.gguf 4096 "$ONNXQ" $cmd >run.out 2>run.err || status=$?
    if [ $status != 3 ] || ! grep -q "^onnxq: error: run.gguf changed size while it was being read" run.err ||
      [ -n "$(ls -A outs)" ]; then
      echo "$cmd: exit $status, $(cat run.err), left: $(ls -A outs)" >&2
      ok=1
    fi
  done
  return $ok
}
check regression_truncated_input_dies_of_sigbus regression_truncated_input_dies_of_sigbus

# Tensors a/b and a_b both went to a_b.npy under --out-dir (the second overwrote the first, exit 0),
# and a newline in a name reached the file name. Now each name is percent-encoded: every tensor has
# a file of its own, inside the directory, from which the name can be read back.
regression_tensor_names_collide_in_out_dir() {
  "$PYTHON" - "$TOOLS" <<'PY' || return 1
import sys
sys.path.insert(0, sys.argv[1])
from gguf_tool import write_gguf
import numpy as np
names = [b"a/b", b"a_b", b"new\nline", b"../up", b".hidden", b"100%", b"A", b"a", b"\xc3\xa9t\xc3\xa9", b"", b"x y.npy"]
write_gguf("names.gguf", [], [[n, (2,), 0, 0, np.array([i, -i], "<f4").tobytes()] for i, n in enumerate(names)], 32)
PY
  rm -rf names && expect_exit 0 "$ONNXQ" dequant names.gguf --all --out-dir names || return 1
  "$PYTHON" - <<'PY'
import os, urllib.parse, numpy as np
names = ["a/b", "a_b", "new\nline", "../up", ".hidden", "100%", "A", "a", "été", "", "x y.npy"]
files = sorted(os.listdir("names"))
want = sorted(["a%2Fb.npy", "a_b.npy", "new%0Aline.npy", "%2E.%2Fup.npy", "%2Ehidden.npy", "100%25.npy", "A.npy",
               "a.npy", "%C3%A9t%C3%A9.npy", "%.npy", "x%20y.npy.npy"])
assert files == want, files
for i, n in enumerate(names):
    f = "%.npy" if n == "" else [f for f in files if urllib.parse.unquote(f[:-4]) == n][0]
    assert np.load(os.path.join("names", f)).tolist() == [i, -i], (n, f)
PY
}
check regression_tensor_names_collide_in_out_dir regression_tensor_names_collide_in_out_dir

# `--filter 'q4_*' -o out.npy` created a directory named out.npy. -o names a directory for several
# tensors only when it is one or ends in '/'; otherwise a usage error that points at --out-dir.
regression_o_file_with_several_tensors_makes_dir() {
  expect_exit 1 "$ONNXQ" dequant "$ZOO" --filter 'q4_*' -o out.npy || return 1
  grep -q "names one file, but 3 tensors were chosen.*--out-dir" "$WORK/err" && [ ! -e out.npy ] || return 1
  expect_exit 0 "$ONNXQ" dequant "$ZOO" --filter 'q4_*' -o q4dir/ || return 1
  [ "$(ls q4dir | tr '\n' ' ')" = "q4_0.weight.npy q4_1.weight.npy q4_k.weight.npy " ] || return 1
  mkdir q4old && expect_exit 0 "$ONNXQ" dequant "$ZOO" --filter 'q4_*' -o q4old || return 1
  [ "$(ls q4old | wc -l)" = 3 ] || return 1
  # One tensor chosen by a pattern still goes to the file named.
  expect_exit 0 "$ONNXQ" dequant "$ZOO" --filter 'q4_0*' -o one.npy && [ -f one.npy ]
}
check regression_o_file_with_several_tensors_makes_dir regression_o_file_with_several_tensors_makes_dir

# `dequant --all` of a split model with a shard missing wrote the tensors of the shards present and
# exited 0. --all (and --filter) now fail before writing anything; the inspection commands and
# --tensor of a present shard still work, with the warning.
regression_all_with_missing_shard_exits_0() {
  "$PYTHON" "$TOOLS/gguf_tool.py" split "$ZOO" part 3 && rm part-00002-of-00003.gguf || return 1
  local what
  for what in --all --filter; do
    local choice=(--all)
    [ $what = --filter ] && choice=(--filter 'q*')
    expect_exit 3 "$ONNXQ" dequant part-00001-of-00003.gguf "${choice[@]}" --out-dir parts || return 1
    grep -q "error: part-00001-of-00003.gguf: $what needs every shard of the model, and these are missing: 2 (part-00002-of-00003.gguf)" \
      "$WORK/err" && [ ! -e parts ] || return 1
  done
  expect_exit 0 "$ONNXQ" dequant part-00001-of-00003.gguf --tensor q4_0.weight -o present.npy || return 1
  for what in list info meta; do
    expect_exit 0 "$ONNXQ" $what part-00001-of-00003.gguf || return 1
  done
  expect_exit 0 "$ONNXQ" list part-00001-of-00003.gguf && grep -q "shards are missing" "$WORK/err"
}
check regression_all_with_missing_shard_exits_0 regression_all_with_missing_shard_exits_0

# A metadata file with the values of the quoting bugs (and an array of i32 arrays).
make_meta_gguf() {
  "$PYTHON" - "$TOOLS" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
from gguf_tool import write_gguf
def s(x): return struct.pack("<Q", len(x)) + x
def strings(items): return struct.pack("<IQ", 8, len(items)) + b"".join(s(i) for i in items)
def i32s(items): return struct.pack("<IQ", 5, len(items)) + struct.pack(f"<{len(items)}i", *items)
write_gguf("meta.gguf", [(b"q.tok", 8, s(b'"')), (b"q.say", 8, s(b'say "hi"')), (b"q.arr", 9, strings([b"x\ny", b"z"])),
                         (b"q.ctl", 8, s(b"bell\x07esc\x1b[31m")), (b"q.back", 9, strings([b"a\\nb"])),
                         (b"q.nest", 9, struct.pack("<IQ", 9, 2) + i32s([1, 2]) + struct.pack("<IQ", 6, 1) + struct.pack("<f", 0.5))],
           [], 32)
PY
}

# The meta table printed the token '"' as """ and 'say "hi"' as "say "hi"": backslashes were escaped
# inside the quotes, quotes were not.
regression_meta_quotes_not_escaped() {
  make_meta_gguf && expect_exit 0 "$ONNXQ" meta meta.gguf || return 1
  grep -qE '^q\.tok +str +"\\""$' "$WORK/out" && grep -qE '^q\.say +str +"say \\"hi\\""$' "$WORK/out" &&
    grep -qF '["a\\nb"]' "$WORK/out"
}
check regression_meta_quotes_not_escaped regression_meta_quotes_not_escaped

# `meta --key ARRAY` printed one element per line unescaped, so ["x\ny", "z"] read as three elements;
# and --key sent raw control bytes to a terminal, where the table escapes them. A string value
# still goes to a file or pipe exactly as stored.
regression_meta_key_array_newline_ambiguous() {
  make_meta_gguf && expect_exit 0 "$ONNXQ" meta meta.gguf -k q.arr -k q.back || return 1
  [ "$(cat "$WORK/out")" = 'x\ny
z
a\\nb' ] || return 1
  expect_exit 0 "$ONNXQ" meta meta.gguf -k q.ctl && [ "$(cat "$WORK/out")" = $'bell\x07esc\x1b[31m' ] || return 1
  script -qec "'$ONNXQ' meta meta.gguf -k q.ctl" /dev/null >tty.txt || return 1
  grep -qF 'bell\x07esc\x1b[31m' tty.txt && ! grep -q $'\x1b' tty.txt
}
check regression_meta_key_array_newline_ambiguous regression_meta_key_array_newline_ambiguous

# `meta --json` said "element_type": "arr" for an array of arrays and lost the inner arrays' types.
regression_meta_json_nested_array_loses_types() {
  make_meta_gguf && expect_exit 0 "$ONNXQ" meta meta.gguf --json || return 1
  "$PYTHON" -c '
import json, sys
e = [e for e in json.load(open(sys.argv[1])) if e["key"] == "q.nest"][0]
assert e["element_type"] == "arr" and e["count"] == 2, e
assert e["elements"] == [{"element_type": "i32", "count": 2}, {"element_type": "f32", "count": 1}], e
assert e["value"] == [[1, 2], [0.5]], e' "$WORK/out"
}
check regression_meta_json_nested_array_loses_types regression_meta_json_nested_array_loses_types

# `diff` could not tell a script whether two models differ. --exit-code: 4 when they differ (the
# status hash --check and check give their findings), 0 when not; errors keep 2 and 3.
regression_diff_cannot_tell_scripts_they_differ() {
  cp "$ZOO" same.gguf && cp "$ZOO" changed.gguf || return 1
  printf '\x01' | dd of=changed.gguf bs=1 seek=$(($(stat -c %s changed.gguf) - 1)) conv=notrunc status=none
  expect_exit 0 "$ONNXQ" diff "$ZOO" same.gguf --exit-code || return 1
  expect_exit 4 "$ONNXQ" diff "$ZOO" changed.gguf --exit-code || return 1
  grep -q "(1 changed)" "$WORK/out" && [ ! -s "$WORK/err" ] || return 1
  expect_exit 4 "$ONNXQ" diff "$ZOO" changed.gguf --exit-code --json || return 1
  expect_exit 0 "$ONNXQ" diff "$ZOO" changed.gguf || return 1  # without the flag, as before
  expect_exit 3 "$ONNXQ" diff "$ZOO" missing.gguf --exit-code || return 1
  head -c 100 "$ZOO" >cut.gguf && expect_exit 2 "$ONNXQ" diff "$ZOO" cut.gguf --exit-code
}
check regression_diff_cannot_tell_scripts_they_differ regression_diff_cannot_tell_scripts_they_differ

# `export -o - --max-shard-size 1KB` is a usage error (the option asks for files), but exited 2.
regression_export_shards_to_stdout_exits_2() {
  expect_exit 1 "$ONNXQ" export "$ZOO" -o - --max-shard-size 1KB || return 1
  grep -q "need -o FILE, not standard output" "$WORK/err" && [ ! -s "$WORK/out" ]
}
check regression_export_shards_to_stdout_exits_2 regression_export_shards_to_stdout_exits_2

finish
