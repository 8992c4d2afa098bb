#!/usr/bin/env bash
# The README's quick tour shows real output: every `$ command` line of the ```text blocks in its
# "A quick tour" section is run, in order, in one scratch folder (testdata/ linked in, onnxq and
# python3 on PATH), and what it prints must be what the README shows after it. Standard output is
# compared word by word (so `ls` in columns or one name a line is the same); the lines that start
# with "onnxq: " are standard error, compared line by line. The hf:// commands read from a
# loopback server (range_server.py) serving the zoo model in the Hub's layout, so
# `export HF_ENDPOINT=...` is pointed at it. The venv and pip lines are not run here
# (python/tests/install.sh runs that install; the module's own tests run by ctest).
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/serve.bash"
here=$(cd "$(dirname "$0")" && pwd)
readme=${README:-$here/../../README.md}

mkdir -p "$WORK/tour" "$WORK/bin" "$WORK/srv/hf/OWNER/REPO/main"
ln -s "$TESTDATA" "$WORK/tour/testdata"
ln -s "$ONNXQ" "$WORK/bin/onnxq"
ln -s "$PYTHON" "$WORK/bin/python3"
cp "$TESTDATA/zoo.gguf" "$WORK/srv/hf/OWNER/REPO/main/model-q4_k.gguf"
start_server "$WORK/srv"

check "the README's tour prints what the README shows" "$PYTHON" - "$readme" "$WORK/tour" "$WORK/bin" "$URL" <<'PY'
import os, re, subprocess, sys
readme, cwd, bindir, url = sys.argv[1:5]
text = open(readme, encoding="utf-8").read()
section = re.search(r"^## A quick tour\n(.*?)^## ", text, re.S | re.M)
assert section, "no '## A quick tour' section in README.md"

# (command, expected stdout lines, expected stderr lines), in README order
steps = []
for block in re.findall(r"^```text\n(.*?)^```", section.group(1), re.S | re.M):
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append([line[2:], [], []])
        elif steps and line.strip():
            steps[-1][2 if line.startswith("onnxq: ") else 1].append(line)
assert len(steps) >= 15, f"only {len(steps)} commands found in the tour"

env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], LC_ALL="C")
env.pop("HF_TOKEN", None)
failed = 0
for command, want_out, want_err in steps:
    if command.startswith("venv/"):
        continue  # the installed module: see the comment at the top
    if command.startswith("export HF_ENDPOINT="):
        env["HF_ENDPOINT"] = url
        continue
    run = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    got_out = run.stdout.split()
    got_err = [l for l in run.stderr.splitlines() if l.strip()]
    want = " ".join(" ".join(want_out).split())
    if got_out != want.split() or got_err != want_err:
        failed += 1
        print(f"FAIL: $ {command}\n  README shows:\n    " + "\n    ".join(want_out + want_err) +
              "\n  printed:\n    " + "\n    ".join(run.stdout.splitlines() + got_err), file=sys.stderr)
print(f"{len(steps)} tour commands, {failed} differing")
sys.exit(1 if failed else 0)
PY

finish
