#!/usr/bin/env bash
# info / meta / list / formats on the zoo file, text and --json, checked against the manifest.
source "$(dirname "$0")/common.bash"
zoo=$TESTDATA/zoo.gguf
manifest=$TESTDATA/manifest.json

# --json output agrees with ggml's manifest, fact by fact.
"$ONNXQ" info --json "$zoo" >"$WORK/info.json"
"$ONNXQ" list --json "$zoo" >"$WORK/list.json"
"$ONNXQ" meta --json "$zoo" >"$WORK/meta.json"
check "json facts match the manifest" "$PYTHON" - "$manifest" "$WORK" <<'PY'
import json, struct, sys
m = json.load(open(sys.argv[1]))["files"]["zoo.gguf"]
work = sys.argv[2]
info = json.load(open(f"{work}/info.json"))
assert info["gguf_version"] == m["gguf_version"] and info["alignment"] == m["alignment"], info
assert info["data_offset"] == m["data_offset"] and info["file_size"] == m["size"], info
assert info["n_kv"] == m["n_kv"] and info["n_tensors"] == m["n_tensors"], info
assert info["parameters"] == sum(t["n_elements"] for t in m["tensors"]), info
assert info["endianness"] == "little"
rows = json.load(open(f"{work}/list.json"))
assert len(rows) == len(m["tensors"])
for row, t in zip(rows, m["tensors"]):
    assert row["name"] == t["name"] and row["type"] == t["type"] and row["ggml_type"] == t["type_id"], (row, t)
    assert row["shape"] == t["onnx_shape"] and row["ne"] == t["ne"], (row, t)
    assert row["bytes"] == t["nbytes"] and row["file_offset"] == t["file_offset"], (row, t)
    assert row["elements"] == t["n_elements"]
meta = json.load(open(f"{work}/meta.json"))
assert [e["key"] for e in meta] == [e["key"] for e in m["metadata"]]
for got, want in zip(meta, m["metadata"]):
    assert got["type"] == want["type"], (got, want)
    if want["type"] in ("f32", "f64"):
        fmt = "<f" if want["type"] == "f32" else "<d"
        bits = struct.unpack("<I" if fmt == "<f" else "<Q", struct.pack(fmt, got["value"]))[0]
        assert bits == int(want["bits"], 16), (got, want)
    elif want["type"] == "arr":
        assert got["element_type"] == want["arr_type"] and got["count"] == want["count"]
        assert got["value"] == want["values"] or want["arr_type"] in ("f32", "f64"), (got, want)
    else:
        assert got["value"] == want["value"], (got, want)
print("json ok")
PY

# Text output: tables a person reads.
"$ONNXQ" info "$zoo" >"$WORK/info.txt"
check "info shows the version" grep -q '^gguf version: *3$' "$WORK/info.txt"
check "info shows the tensor count" grep -q '^tensors: *38$' "$WORK/info.txt"
check "info lists types" grep -qE '^Q4_K +2 +3072 +1728' "$WORK/info.txt"
"$ONNXQ" list "$zoo" >"$WORK/list.txt"
check "list has a header and 38 rows" test "$(wc -l <"$WORK/list.txt")" -eq 39
check "list shows the ONNX shape" grep -qE '^cube_3d.q4_k +Q4_K +gguf:q4_k +\[3, 2, 256\] +1536 +864 ' "$WORK/list.txt"
"$ONNXQ" list --filter 'iq2_*' "$zoo" >"$WORK/filter.txt"
check "list --filter selects by glob" test "$(wc -l <"$WORK/filter.txt")" -eq 4
"$ONNXQ" meta "$zoo" >"$WORK/meta.txt"
check "meta escapes control characters" grep -qF '"line\nbreak"' "$WORK/meta.txt"
check "meta shows array types" grep -qE '^test.array_uint64 +arr\[u64,3\] +\[0, 18446744073709551615, 9007199254740993\]' "$WORK/meta.txt"
check "meta --key prints raw values" test "$("$ONNXQ" meta "$zoo" --key test.uint64 --key general.name)" = $'9223372036854775813\nonnxq test zoo A'
check "meta --key on a float is round-trippable" test "$("$ONNXQ" meta "$zoo" -k test.float32)" = "3.1415927"
"$ONNXQ" formats >"$WORK/formats.txt"
check "formats lists 27 block formats" test "$(grep -c '^gguf:' "$WORK/formats.txt")" -eq 27
check "formats --json" "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); assert len(r)==35 and r[0]["format_id"]=="gguf:q4_0" and r[0]["block_bytes"]==18' <<<"$("$ONNXQ" formats --json)"

# Exit codes and one-line errors.
check "missing file: exit 3" expect_exit 3 "$ONNXQ" info "$WORK/nope.gguf"
check "error names the file" grep -q "nope.gguf" "$WORK/err"
printf 'GGUF\x01\x00\x00\x00' >"$WORK/v1.gguf"
check "v1 file: exit 2" expect_exit 2 "$ONNXQ" list "$WORK/v1.gguf"
check "v1 error is one line and says why" test "$(wc -l <"$WORK/err")" -eq 1 -a -n "$(grep 'version 1 is not supported' "$WORK/err")"
head -c 1000 "$zoo" >"$WORK/cut.gguf"
check "truncated file: exit 2" expect_exit 2 "$ONNXQ" info "$WORK/cut.gguf"
check "unknown key: exit 2" expect_exit 2 "$ONNXQ" meta "$zoo" --key no.such.key
check "usage error: exit 1" expect_exit 1 "$ONNXQ" info
check "usage error shows usage" grep -qi 'usage\|required' "$WORK/err"
check "unknown command: exit 1" expect_exit 1 "$ONNXQ" frobnicate
check "--help: exit 0" expect_exit 0 "$ONNXQ" list --help
check "--version" expect_exit 0 "$ONNXQ" --version
chmod 0444 "$WORK/cut.gguf"
cp "$zoo" "$WORK/ro.gguf" && chmod 0444 "$WORK/ro.gguf"
check "read-only file opens" expect_exit 0 "$ONNXQ" list "$WORK/ro.gguf"
finish
