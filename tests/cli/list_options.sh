#!/usr/bin/env bash
# Repeatable options take exactly one word per use, so they never swallow the positional input:
# every spelling (--opt V, --opt=V, repeated uses) in every order relative to the positional.
# The walk at the end reads every command's options from `onnxq --generate options` (the same
# CLI11 definitions --help prints) and fails on any option that may take more than one word, and
# on any repeatable option this script does not exercise.
source "$(dirname "$0")/common.bash"
cd "$WORK"
LOAD='import sys, numpy as np; a = np.load(sys.argv[1])'
"$PYTHON" -c "import numpy as np; np.save('x.npy', np.arange(3, dtype=np.float32)); np.save('idx.npy', np.array([0, 2], dtype=np.int64))"
printf '\x88\xc6\xfa' >in.bin
tested=()

# shape_is FILE PYTHON-TUPLE: the .npy's shape.
shape_is() { "$PYTHON" -c "$LOAD; assert a.shape == $2, a.shape" "$1"; }

# --- unsqueeze --axes: a comma list per use; uses add up ---
tested+=("unsqueeze --axes")
for form in "--axes 0,2 x.npy" "--axes=0,2 x.npy" "--axes 0 --axes 2 x.npy" "--axes=0 --axes=2 x.npy" \
  "x.npy --axes 0,2" "x.npy --axes=0,2" "x.npy --axes 0 --axes 2" "--axes 0 x.npy --axes 2"; do
  rm -f y.npy
  # shellcheck disable=SC2086  # the form is split into words on purpose
  check "unsqueeze $form" bash -c "'$ONNXQ' unsqueeze $form -o y.npy && $(declare -f shape_is); PYTHON='$PYTHON' LOAD='$LOAD' shape_is y.npy '(1, 3, 1)'"
done
for form in "--axes -1 x.npy" "--axes=-1 x.npy" "x.npy --axes -1"; do
  rm -f y.npy
  # shellcheck disable=SC2086
  check "unsqueeze $form" bash -c "'$ONNXQ' unsqueeze $form -o y.npy && $(declare -f shape_is); PYTHON='$PYTHON' LOAD='$LOAD' shape_is y.npy '(3, 1)'"
done

# --- unpack --shape: raw words' shape; the issue's own example first ---
tested+=("unpack --shape")
for form in "--storage u8 --shape 3 in.bin --bits 3" "--shape=3 in.bin --bits 3" "in.bin --shape 3 --bits 3" \
  "--shape 1,3 in.bin --bits 3" "--shape 1 --shape 3 in.bin --bits 3" "--shape=1 --shape=3 in.bin --bits 3"; do
  rm -f y.npy
  want='(8,)'
  [[ "$form" == *1* ]] && want='(1, 8)'
  # shellcheck disable=SC2086
  check "unpack $form" bash -c "'$ONNXQ' unpack $form --count 8 -o y.npy && '$PYTHON' -c \"$LOAD; assert a.shape == $want and a.ravel().tolist() == list(range(8)), a\" y.npy"
done

# --- onehot --values: OFF,ON in one use or two ---
tested+=("onehot --values")
for form in "--values 5,7 idx.npy" "--values=5,7 idx.npy" "--values 5 --values 7 idx.npy" "idx.npy --values 5,7" \
  "idx.npy --values=5 --values=7" "--values 5 idx.npy --values 7"; do
  rm -f y.npy
  # shellcheck disable=SC2086
  check "onehot $form" bash -c "'$ONNXQ' onehot --depth 3 $form -o y.npy && '$PYTHON' -c \"$LOAD; assert a.tolist() == [[7, 5, 5], [5, 5, 7]], a\" y.npy"
done
check "onehot three values is a usage error" expect_exit 1 "$ONNXQ" onehot --depth 3 --values 5 --values 6,7 idx.npy -o y.npy

# --- dequant --tensor / --format / --shape ---
zoo=$TESTDATA/zoo.gguf
tested+=("dequant --tensor")
for form in "--tensor q4_0.weight $zoo" "--tensor=q4_0.weight $zoo" "$zoo --tensor q4_0.weight"; do
  rm -f y.npy
  # shellcheck disable=SC2086
  check "dequant $form" bash -c "'$ONNXQ' dequant $form -o y.npy && '$PYTHON' -c \"$LOAD; assert a.shape == (3, 512)\" y.npy"
done
rm -rf two
# shellcheck disable=SC2086
check "dequant --tensor A --tensor B FILE" bash -c "'$ONNXQ' dequant --tensor q4_0.weight --tensor=q8_0.weight $zoo -o two/ && [ -f two/q4_0.weight.npy ] && [ -f two/q8_0.weight.npy ]"
tested+=("dequant --format" "dequant --shape")
blk=$TESTDATA/gguf/blocks/q4_0.bin
"$ONNXQ" dequant --raw "$blk" --packed-format gguf:q4_0 --shape 10,32 -o ref.npy
for form in "--format gguf:q4_0 --shape 10,32" "--format=gguf:q4_0 --shape=10,32" "--shape 10 --shape 32 --format gguf:q4_0" \
  "--shape=10 --shape=32 --packed-format gguf:q4_0" "--format npy --format gguf:q4_0 --shape [10,32]"; do
  rm -f y.npy
  # shellcheck disable=SC2086
  check "dequant --raw $form" bash -c "'$ONNXQ' dequant --raw '$blk' $form -o y.npy && cmp -s y.npy ref.npy"
done
# quantize --shape: raw float32 rows' shape, in every spelling.
tested+=("quantize --shape")
"$PYTHON" -c "import numpy as np; np.arange(320, dtype=np.float32).tofile('rows.f32')"
"$ONNXQ" quantize --raw rows.f32 --packed-format gguf:q8_0 --shape 10,32 -o qref.bin
for form in "--shape 10,32" "--shape=10,32" "--shape 10 --shape 32" "--shape=10 --shape=32" "--shape [10,32]"; do
  rm -f q.bin
  # shellcheck disable=SC2086
  check "quantize --raw $form" bash -c "'$ONNXQ' quantize --raw rows.f32 --packed-format gguf:q8_0 $form -o q.bin && cmp -s q.bin qref.bin"
done
# quantize --tensor-type and --keep: one GLOB(=TYPE) per use, before or after the model IN.
tested+=("quantize --tensor-type" "quantize --keep")
mkdir -p qm && "$PYTHON" "$(dirname "$0")/quantize_models.py" "$TESTDATA" qm
for form in "--tensor-type blk.*=q8_0 qm/tiny.gguf" "--tensor-type=blk.*=q8_0 qm/tiny.gguf" "qm/tiny.gguf --tensor-type blk.*=q8_0" \
  "--tensor-type x=q6_k --tensor-type blk.*=q8_0 qm/tiny.gguf" "--keep blk.* qm/tiny.gguf --tensor-type=blk.*=q8_0"; do
  want=3
  [[ "$form" == *--keep* ]] && want=0
  # shellcheck disable=SC2086
  check "quantize $form" bash -c "[ \"\$('$ONNXQ' quantize --type q4_k --dry-run --json $form | '$PYTHON' -c 'import json,sys; print(sum(t[\"to\"] == \"Q8_0\" for t in json.load(sys.stdin)[\"tensors\"]))')\" = $want ]"
done
for form in "--keep blk.* qm/tiny.gguf" "--keep=blk.* qm/tiny.gguf" "qm/tiny.gguf --keep blk.0.* --keep blk.1.*"; do
  # shellcheck disable=SC2086
  check "quantize $form" bash -c "[ \"\$('$ONNXQ' quantize --type q4_k --dry-run --json $form | '$PYTHON' -c 'import json,sys; print(sum(t[\"copied\"] for t in json.load(sys.stdin)[\"tensors\"]))')\" = 4 ]"
done
# --raw with a positional FILE is refused by dequant itself, not read as a shape or format.
# shellcheck disable=SC2086
check "dequant --raw --shape 10,32 FILE is not a shape" bash -c "'$ONNXQ' dequant --raw '$blk' --packed-format gguf:q4_0 --shape 10,32 '$zoo' -o y.npy 2>err; [ \$? -ne 0 ] && ! grep -q 'Could not convert' err"

# --- meta --key, stats --tensor, export --tensor: names before and after FILE ---
tested+=("meta --key")
for form in "--key general.name $zoo" "--key=general.name $zoo" "-k general.name $zoo" "$zoo --key general.name"; do
  # shellcheck disable=SC2086
  check "meta $form" bash -c "[ \"\$('$ONNXQ' meta $form)\" = 'onnxq test zoo A' ]"
done
# shellcheck disable=SC2086
check "meta --key A --key B FILE" bash -c "[ \"\$('$ONNXQ' meta --key general.name --key=general.architecture $zoo | wc -l)\" = 2 ]"
tested+=("stats --tensor")
for form in "--tensor q4_0.weight $zoo" "--tensor=q4_0.weight $zoo" "$zoo --tensor q4_0.weight" \
  "--tensor q4_0.weight --tensor q8_0.weight $zoo"; do
  n=1
  [[ "$form" == *q8_0* ]] && n=2
  # shellcheck disable=SC2086
  check "stats $form" bash -c "[ \"\$('$ONNXQ' stats --json $form | '$PYTHON' -c 'import json,sys; print(len(json.load(sys.stdin)))')\" = $n ]"
done
tested+=("export --tensor")
for form in "--tensor q4_0.weight $zoo" "--tensor=q4_0.weight $zoo" "$zoo --tensor q4_0.weight" \
  "--tensor q4_0.weight --tensor q8_0.weight $zoo"; do
  n=1
  [[ "$form" == *q8_0* ]] && n=2
  rm -f m.safetensors
  # shellcheck disable=SC2086
  check "export $form" bash -c "'$ONNXQ' export $form -o m.safetensors && '$PYTHON' -c '
import json, struct, sys
b = open(\"m.safetensors\", \"rb\").read(); h = json.loads(b[8:8 + struct.unpack(\"<Q\", b[:8])[0]])
h.pop(\"__metadata__\", None); assert len(h) == $n, h'"
done

# --- run -i / make-case -i / --attr: one input per use ---
tested+=("run --input" "make-case --input" "make-case --attr")
"$PYTHON" -c "import numpy as np; np.save('w.npy', np.array([0x88, 0xc6, 0xfa], dtype=np.uint8)); np.save('count.npy', np.array(8, dtype=np.int64))"
for form in "-i w.npy -i count.npy --attr bits=3" "--input=w.npy --input=count.npy --attr=bits=3" "--attr bits=3 -i w.npy --input count.npy"; do
  rm -rf case
  # shellcheck disable=SC2086
  check "make-case $form" bash -c "'$ONNXQ' make-case --op Unpack $form -o case >/dev/null && [ -f case/model.onnx ]"
done
"$ONNXQ" make-case --op Unpack --attr bits=3 -i w.npy -i count.npy -o case >/dev/null
for form in "case/model.onnx -i X=w.npy -i count=count.npy" "-i X=w.npy case/model.onnx -i count=count.npy" \
  "--input=w.npy --input=count.npy case/model.onnx"; do
  rm -rf out
  # shellcheck disable=SC2086
  check "run $form" bash -c "'$ONNXQ' run $form -o out >/dev/null && '$PYTHON' -c \"import numpy as np, glob; a = np.load(glob.glob('out/*.npy')[0]); assert a.tolist() == list(range(8)), a\""
done

# --- run --output: one output per use ---
tested+=("run --output")
cp "$zoo" outputs.gguf && "$ONNXQ" export outputs.gguf -o outputs.onnx --filter 'q4_[01].weight' --tensor f16.weight
for form in "outputs.onnx --output q4_0.weight --output f16.weight" "--output=q4_0.weight outputs.onnx --output=f16.weight"; do
  rm -rf out
  # shellcheck disable=SC2086
  check "run $form" bash -c "'$ONNXQ' run $form -o out >/dev/null && [ \"\$(ls out | tr '\n' ' ')\" = 'f16.weight.npy q4_0.weight.npy ' ]"
done

# --- edit --set / --set-json / --remove / --rename / --special-token: one change per use ---
tested+=("edit --set" "edit --set-json" "edit --remove" "edit --rename" "edit --special-token")
# meta_is FILE KEY WANT: the value `onnxq meta --key` prints (an array's elements joined by commas).
meta_is() { [ "$("$ONNXQ" meta --key "$2" "$1" | paste -sd,)" = "$3" ]; }
for form in "--set general.name=x --set test.uint8=7 $zoo" "--set=general.name=x --set=test.uint8=7 $zoo" \
  "$zoo --set general.name=x --set test.uint8=7" "--set general.name=x $zoo --set=test.uint8=7"; do
  rm -f e.gguf
  # shellcheck disable=SC2086
  check "edit $form" bash -c "'$ONNXQ' edit $form -o e.gguf && $(declare -f meta_is); ONNXQ='$ONNXQ'; meta_is e.gguf general.name x && meta_is e.gguf test.uint8 7"
done
for form in "--set-json test.array_int8=[1,2] --set-json=test.array_bool=[false] $zoo" \
  "$zoo --set-json=test.array_int8=[1,2] --set-json test.array_bool=[false]"; do
  rm -f e.gguf
  # shellcheck disable=SC2086
  check "edit $form" bash -c "'$ONNXQ' edit $form -o e.gguf && $(declare -f meta_is); ONNXQ='$ONNXQ'; meta_is e.gguf test.array_int8 1,2 && meta_is e.gguf test.array_bool false"
done
for form in "--remove test.uint8 --remove=test.int8* $zoo" "$zoo --remove=test.uint8 --remove test.int8*"; do
  rm -f e.gguf
  # shellcheck disable=SC2086
  check "edit $form" bash -c "'$ONNXQ' edit $form -o e.gguf && ! '$ONNXQ' meta e.gguf | grep -q '^test\.u\?int8 '"
done
for form in "--rename test.uint8=a.b --rename=test.int8=c.d $zoo" "$zoo --rename=test.uint8=a.b --rename test.int8=c.d"; do
  rm -f e.gguf
  # shellcheck disable=SC2086
  check "edit $form" bash -c "'$ONNXQ' edit $form -o e.gguf && $(declare -f meta_is); ONNXQ='$ONNXQ'; meta_is e.gguf a.b 200 && meta_is e.gguf c.d -100"
done
for form in "--special-token bos=#1 --special-token=eos=#2 $zoo" "$zoo --special-token=bos=#1 --special-token eos=#2"; do
  rm -f e.gguf
  # shellcheck disable=SC2086
  check "edit $form" bash -c "'$ONNXQ' edit $form -o e.gguf && $(declare -f meta_is); ONNXQ='$ONNXQ'; meta_is e.gguf tokenizer.ggml.bos_token_id 1 && meta_is e.gguf tokenizer.ggml.eos_token_id 2"
done

# --- the walk: no option of any command takes more than one word per use ---
"$ONNXQ" --generate options >options.tsv
check "--generate options lists the commands" grep -q $'^onnxq unsqueeze\t--axes\t' options.tsv
while IFS=$'\t' read -r cmd opt words repeat; do
  [[ "$opt" == -* ]] || continue # positionals (conformance's PATH...) may take the rest
  check "$cmd $opt takes at most one word per use (got $words)" test "$words" -ge 0 -a "$words" -le 1
  if [ "$repeat" = repeatable ] && [ "$opt" != --verbose ]; then
    name="${cmd#onnxq } $opt"
    found=0
    for t in "${tested[@]}"; do [ "$t" = "$name" ] && found=1; done
    check "repeatable option '$name' has spelling tests here" test $found = 1
  fi
done <options.tsv
finish
