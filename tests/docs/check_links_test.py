#!/usr/bin/env python3
"""The link checker finds every broken link in its fixture and nothing else: each line of
fixtures/links.md marked `<!-- broken -->` is reported, no other line is."""
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
fixture = os.path.join(here, "fixtures", "links.md")
with open(fixture, encoding="utf-8") as f:
    want = {n for n, line in enumerate(f, 1) if "<!-- broken -->" in line}
run = subprocess.run([sys.executable, os.path.join(here, "check_links.py"), fixture],
                     capture_output=True, text=True)
print(run.stdout, end="")
got = {int(m.group(1)) for m in re.finditer(r"^.*links\.md:(\d+): ", run.stdout, re.M)}
ok = True
for n in sorted(want - got):
    print(f"FAIL: line {n} is broken but was not reported")
    ok = False
for n in sorted(got - want):
    print(f"FAIL: line {n} was reported but is not broken")
    ok = False
if run.returncode != 1:
    print(f"FAIL: exit code {run.returncode}, expected 1")
    ok = False
print("link checker test passed" if ok else "link checker test FAILED")
sys.exit(0 if ok else 1)
