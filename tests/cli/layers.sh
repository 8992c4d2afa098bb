# The library's layering (scripts/check-layers): includes in lib/ only point down, no include
# cycles, no file outside a layer folder. The checker itself is shown to catch each kind of
# violation on small trees made here, so a broken checker cannot pass the real tree silently.
source "$(dirname "$0")/common.bash"
repo=$(cd "$(dirname "$0")/../.." && pwd)
check_layers=("$PYTHON" "$repo/scripts/check-layers")

check "the library's own tree is layered" expect_exit 0 "${check_layers[@]}" "$repo"
check "CONTRIBUTING.md shows its table" grep -qx 'check-layers: CONTRIBUTING.md shows this table' "$WORK/out"
check "it counts what it read" grep -qE '^check-layers: [1-9][0-9]+ files, [1-9][0-9]+ includes, 0 problems$' "$WORK/out"

# make_tree DIR FILE=INCLUDE...: files under DIR/lib/src, each including the named header (or none).
make_tree() {
  local dir=$1
  shift
  for spec in "$@"; do
    local file=${spec%%=*} include=${spec#*=}
    mkdir -p "$dir/lib/src/$(dirname "$file")"
    if [ -n "$include" ]; then echo "#include \"$include\"" >"$dir/lib/src/$file"; else : >"$dir/lib/src/$file"; fi
  done
  mkdir -p "$dir/lib/include/onnxq"
}

make_tree "$WORK/ok" core/a.hpp= decode/b.cpp=core/a.hpp
check "a downward include passes" expect_exit 0 "${check_layers[@]}" "$WORK/ok"

make_tree "$WORK/up" core/a.cpp=decode/b.hpp decode/b.hpp=
check "an upward include fails" expect_exit 1 "${check_layers[@]}" "$WORK/up"
check "and names the file and both layers" grep -q 'lib/src/core/a.cpp: includes "decode/b.hpp" from layer decode' "$WORK/out"

make_tree "$WORK/side" gguf/a.cpp=npy/b.hpp npy/b.hpp=
check "an include between layers of one rank fails" expect_exit 1 "${check_layers[@]}" "$WORK/side"

make_tree "$WORK/cycle" ops/a.hpp=ops/b.hpp ops/b.hpp=ops/a.hpp
check "an include cycle fails" expect_exit 1 "${check_layers[@]}" "$WORK/cycle"
check "and is shown" grep -q '^include cycle: src/ops/a.hpp -> src/ops/b.hpp -> src/ops/a.hpp$' "$WORK/out"

make_tree "$WORK/loose" loose.cpp=
check "a file at the top of lib/src fails" expect_exit 1 "${check_layers[@]}" "$WORK/loose"
check "and is named" grep -q '^lib/src/loose.cpp: not inside a layer folder' "$WORK/out"

make_tree "$WORK/public" core/a.cpp=onnxq/ops/x.hpp
mkdir -p "$WORK/public/lib/include/onnxq/ops" && : >"$WORK/public/lib/include/onnxq/ops/x.hpp"
check "an upward include of a public header fails" expect_exit 1 "${check_layers[@]}" "$WORK/public"

# The decode build's folders (lib/CMakeLists.txt's ONNXQ_DECODE_FOLDERS): a layer and all below it.
make_tree "$WORK/decode" core/a.hpp= decode/b.cpp=core/a.hpp
echo 'set(ONNXQ_DECODE_FOLDERS core decode)' >"$WORK/decode/lib/CMakeLists.txt"
check "decode folders missing a layer below fail" expect_exit 1 "${check_layers[@]}" "$WORK/decode"
check "and name the layers wanted" grep -q '^lib/CMakeLists.txt: ONNXQ_DECODE_FOLDERS is core decode; decode and the layers below it are core formats quantize reference simd decode$' "$WORK/out"
echo 'set(ONNXQ_DECODE_FOLDERS core formats reference quantize simd decode)' >"$WORK/decode/lib/CMakeLists.txt"
check "decode folders that are a layer and all below it pass" expect_exit 0 "${check_layers[@]}" "$WORK/decode"

# The table: CONTRIBUTING.md's copy must be what --table prints, and each allowed layer used.
"${check_layers[@]}" --table >"$WORK/table"
check "--table prints the layers" grep -qx '| `gguf` | decode, io | core, formats, quantize, reference, simd |' "$WORK/table"
make_tree "$WORK/doc" core/a.hpp= decode/b.cpp=core/a.hpp
{ echo '<!-- check-layers:table -->'; sed 's/| `gguf` | decode, io |/| `gguf` | decode |/' "$WORK/table"
  echo '<!-- /check-layers:table -->'; } >"$WORK/doc/CONTRIBUTING.md"
check "a copy that differs fails" expect_exit 1 "${check_layers[@]}" "$WORK/doc"
check "and is named" grep -q '^CONTRIBUTING.md: the layer table differs' "$WORK/out"
check "an allowed layer no file includes is named" grep -q '^LAYERS: gguf may include io, but no file of gguf does$' "$WORK/out"
{ echo '<!-- check-layers:table -->'; cat "$WORK/table"; echo '<!-- /check-layers:table -->'; } >"$WORK/doc/CONTRIBUTING.md"
expect_exit 1 "${check_layers[@]}" "$WORK/doc"
check "the same copy is accepted" grep -qx 'check-layers: CONTRIBUTING.md shows this table' "$WORK/out"

finish
