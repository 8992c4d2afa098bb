# Start-up (issue 13): `onnxq` loads no libprotobuf/libonnx_proto (only onnxq-onnx, which runs the
# ONNX commands, does), only the chosen command's options are built, and the ONNX commands still
# work through onnxq-onnx, with a clear I/O error when it is missing.
source "$(dirname "$0")/common.bash"

# lacks LIB FILE: FILE's dynamic section names no shared library matching LIB.
lacks() { readelf -d "$2" >"$WORK/dynamic" && ! grep -q "NEEDED.*\[$1" "$WORK/dynamic"; }
check "onnxq does not load libprotobuf" lacks libprotobuf "$ONNXQ"
check "nor libonnx_proto" lacks libonnx "$ONNXQ"
check "nor spdlog or fmt (header-only)" bash -c "$(declare -f lacks); WORK=$WORK; lacks libspdlog '$ONNXQ' && lacks libfmt '$ONNXQ'"
check "nor libcurl (loaded when a remote file is opened)" lacks libcurl "$ONNXQ"
check "local commands never load it" bash -c "LD_DEBUG=libs '$ONNXQ' info '$TESTDATA/zoo.gguf' 2>&1 >/dev/null | grep -c 'libcurl' | grep -qx 0"
# The OpenMP runtime: GCC's libgomp.a in a release build; a sanitizer build keeps every runtime
# shared, as its interceptors expect (app/CMakeLists.txt), and so loads libgomp.so (GCC) or
# libomp.so (clang).
if grep -q '__asan_init' <(readelf --dyn-syms "$ONNXQ"); then
  check "a sanitizer build loads the shared OpenMP runtime" bash -c "readelf -d '$ONNXQ' | grep -qE 'NEEDED.*\[lib(g)?omp'"
else
  check "nor a shared OpenMP runtime (GCC builds link libgomp.a)" bash -c "$(declare -f lacks); WORK=$WORK; lacks libgomp '$ONNXQ' && lacks libomp '$ONNXQ'"
fi
helper=$(dirname "$ONNXQ")/onnxq-onnx
check "onnxq-onnx is built beside onnxq" test -x "$helper"
check "and loads libprotobuf" bash -c "readelf -d '$helper' | grep -q 'NEEDED.*libprotobuf'"

# Every command is still defined: help lists them, and a command's own help works.
check "--help lists the ONNX commands" bash -c "'$ONNXQ' --help | grep -q '^  conformance' && '$ONNXQ' --help | grep -q '^  make-case'"
check "conformance --help comes from onnxq" bash -c "'$ONNXQ' conformance --help | grep -q -- '--json-out'"
check "--version" bash -c "'$ONNXQ' --version | grep -q '^onnxq '"
check "a mistyped command is reported" expect_exit 1 "$ONNXQ" infoo
check "info with -v before the command" expect_exit 0 "$ONNXQ" -v info "$TESTDATA/zoo.gguf"

# The ONNX commands run in onnxq-onnx: same output and exit codes as before.
check "conformance runs" expect_exit 0 "$ONNXQ" conformance "$TESTDATA/onnx-node" --filter 'test_unpack_3bit'
check "and reports" grep -qx '1 passed, 0 failed, 0 skipped' "$WORK/out"
check "a usage error stays exit 1" expect_exit 1 "$ONNXQ" make-case --op Nope -i "$TESTDATA/zoo.gguf" -o "$WORK/c"

# Without onnxq-onnx (a copy of onnxq alone), an ONNX command is an I/O error naming it.
mkdir -p "$WORK/alone" && cp "$ONNXQ" "$WORK/alone/onnxq"
check "a missing onnxq-onnx is exit 3" expect_exit 3 "$WORK/alone/onnxq" conformance "$TESTDATA/onnx-node"
check "and named" grep -q 'cannot run .*onnxq-onnx' "$WORK/err"
check "other commands do not need it" expect_exit 0 "$WORK/alone/onnxq" info "$TESTDATA/zoo.gguf"

finish
