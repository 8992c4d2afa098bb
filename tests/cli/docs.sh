#!/usr/bin/env bash
# The man page and completions cannot drift: the checked-in files equal what the binary
# generates, and every option that `onnxq CMD --help` prints appears in the man page
# section of CMD (and the other way round). Also: the documented facts (exit codes,
# environment, bf16 convention) are there, --generate stays hidden, bash completion works.
source "$(dirname "$0")/common.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
regen="run scripts/gen-docs (BUILD_DIR=<your build> scripts/gen-docs) and commit man/"

"$ONNXQ" --generate man >"$WORK/onnxq.1"
"$ONNXQ" --generate bash >"$WORK/onnxq.bash"
"$ONNXQ" --generate zsh >"$WORK/_onnxq"
check "man/onnxq.1 is up to date ($regen)" cmp -s "$WORK/onnxq.1" "$root/man/onnxq.1"
check "man/completions/onnxq.bash is up to date" cmp -s "$WORK/onnxq.bash" "$root/man/completions/onnxq.bash"
check "man/completions/_onnxq is up to date" cmp -s "$WORK/_onnxq" "$root/man/completions/_onnxq"
check "--generate is hidden from --help" bash -c "! '$ONNXQ' --help | grep -q -- --generate"
check "bad --generate value is a usage error" expect_exit 1 "$ONNXQ" --generate pdf

# Every command's --help, as a user sees it.
"$ONNXQ" --help >"$WORK/help.txt"
commands=$(awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}' "$WORK/help.txt")
check "--help lists commands" test -n "$commands"
for c in $commands; do "$ONNXQ" "$c" --help >"$WORK/help.$c.txt"; done
check "every option in --help is in the man page and vice versa" "$PYTHON" - "$WORK" "$commands" <<'PY'
import re, sys
work, commands = sys.argv[1], sys.argv[2].split()
man = open(f"{work}/onnxq.1").read()

def help_items(path):
    names, section = set(), None
    for line in open(path):
        if re.match(r"^\S.*:$", line):
            section = line.strip()[:-1]
            continue
        m = re.match(r"^  (\S+)", line)
        if not m or section not in ("Options", "Positionals"):
            continue
        if section == "Options":
            names.update(n for n in m.group(1).split(",") if n.startswith("-"))
        else:
            names.add(m.group(1))
    return names

def man_section(name):
    # .SS "onnxq CMD" up to the next .SS or .SH; the global options live under .SH GLOBAL OPTIONS.
    start = man.index(name)
    ends = [i for i in (man.find("\n.SS ", start + 1), man.find("\n.SH ", start + 1)) if i >= 0]
    return man[start:min(ends)]

def man_items(text):
    opts = {o.replace("\\-", "-") for o in re.findall(r"\\fB((?:\\-){1,2}[A-Za-z0-9][\\A-Za-z0-9-]*)\\fR", text)}
    tp = re.findall(r"^\.TP\n(.*)$", text, re.M)
    positionals = {m.group(1).replace("\\-", "-") for h in tp for m in [re.match(r"\\fI([^\\]+(?:\\-[^\\]+)*)\\fR", h)] if m}
    headings = set()
    for h in tp:
        headings.update(n.replace("\\-", "-") for n in re.findall(r"\\fB((?:\\-){1,2}[^\\]*(?:\\-[^\\]*)*)\\fR", h))
    return headings, positionals

problems = []
sections = {"": man_section(".SH GLOBAL OPTIONS")}
sections.update({c: man_section('.SS "onnxq ' + c.replace("-", "\\-") + '"') for c in commands})
for c in [""] + commands:
    want = help_items(f"{work}/help.txt" if c == "" else f"{work}/help.{c}.txt")
    headings, positionals = man_items(sections[c])
    have = headings | positionals
    for name in sorted(want - have):
        problems.append(f"{c or '(global)'}: {name} in --help but not in the man page")
    for name in sorted(headings - want):
        problems.append(f"{c or '(global)'}: {name} in the man page but not in --help")
    if c and not want:
        problems.append(f"{c}: nothing parsed from --help")
assert not problems, "\n".join(problems)
assert len(commands) >= 8, commands
PY

check "man page documents exit codes, environment and the bf16 convention" "$PYTHON" - "$WORK/onnxq.1" "$root/app/exit_codes.hpp" <<'PY'
import re, sys
man = open(sys.argv[1]).read()
status = man[man.index(".SH EXIT STATUS"):man.index(".SH ENVIRONMENT")]
codes = [int(v) for v in re.findall(r"kExit\w+ = (\d+)", open(sys.argv[2]).read())]
assert codes and all(f".B {c}\n" in status for c in codes), (codes, status)
env = man[man.index(".SH ENVIRONMENT"):man.index(".SH NOTES")]
for word in ("ONNXQ_ISA", "scalar", "avx2", "avx512", "avx512vbmi", "OMP_NUM_THREADS"):
    assert word in env, word
assert "'<u2'" in man and "bfloat16" in man.lower()
assert "| onnxq unsqueeze" in man.replace("\\-", "-") and "xargs -P" in man.replace("\\-", "-")
PY

# groff and zsh come from scripts/setup: a missing tool fails here rather than skipping the check.
check "groff is installed (scripts/setup)" command -v groff
groff -man -Tutf8 -ww -z "$WORK/onnxq.1" 2>"$WORK/groff.txt" || echo "groff failed" >>"$WORK/groff.txt"
check "groff renders the man page without warnings" test ! -s "$WORK/groff.txt"

check "bash completion completes commands, options and --dtype values" bash -c '
  source "$1"
  complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _onnxq; echo "${COMPREPLY[*]}"; }
  [[ " $(complete_words onnxq exp) " == *" export "* ]] || exit 1
  [[ " $(complete_words onnxq export --dt) " == " --dtype " ]] || exit 1
  [[ "$(complete_words onnxq export x.gguf --dtype "")" == "bf16 f16 f32" ]] || exit 1
  [[ " $(complete_words onnxq stats --) " == *" --threads "* ]] || exit 1
' _ "$WORK/onnxq.bash"
# File names are offered exactly where an option is declared to name a path (names_path()),
# not where its help text happens to mention a file or folder.
mkdir -p "$WORK/compl" && touch "$WORK/compl/some.file"
check "bash completion offers file names for path options and only for them" bash -c '
  source "$1"
  cd "$2"
  complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _onnxq; echo "${COMPREPLY[*]}"; }
  [[ "$(complete_words onnxq conformance cases --json-out so)" == "some.file" ]] || exit 1
  [[ "$(complete_words onnxq dequant m.gguf --out-dir so)" == "some.file" ]] || exit 1
  [[ "$(complete_words onnxq run m.onnx -i so)" == "some.file" ]] || exit 1
  [[ -z "$(complete_words onnxq make-case --name so)" ]] || exit 1
  [[ -z "$(complete_words onnxq conformance cases --filter so)" ]] || exit 1
  [[ -z "$(complete_words onnxq stats m.gguf --threads so)" ]] || exit 1
' _ "$WORK/onnxq.bash" "$WORK/compl"
check "zsh completion offers files for path options and only for them" "$PYTHON" - "$WORK/_onnxq" <<'PY'
import re, sys
z = open(sys.argv[1]).read()
def spec(pattern):
    return re.search("^    " + pattern + r"( \\)?$", z, re.M) is not None
assert spec(r"'--json-out\[.*\]:FILE\|-:_files'"), "--json-out"
assert spec(r"'--out-dir\[.*\]:TEXT:_files'"), "--out-dir"
assert spec(r"'1:FILE:_files'"), "FILE"
assert spec(r"'--name\[.*\]:TEXT:'"), "--name"
assert spec(r"'--filter\[Cases .*\]:TEXT:'"), "--filter"
PY
check "zsh completion parses" zsh -n "$WORK/_onnxq"
finish
