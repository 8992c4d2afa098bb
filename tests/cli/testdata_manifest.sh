#!/usr/bin/env bash
# testdata/ is what the golden tests trust: every file the manifest describes must have the sha256
# the manifest records (whole files, .npy data, and each tensor's bytes inside zoo.gguf), every
# sha256 in the manifest must be checked here, and no file under testdata/gguf/ may be unlisted.
source "$(dirname "$0")/common.bash"

check "testdata matches the manifest's sha256 fields" "$PYTHON" - "$TESTDATA" <<'PY'
import hashlib, json, os, sys
import numpy as np
root = sys.argv[1]
gguf = os.path.join(root, "gguf")
m = json.load(open(os.path.join(root, "manifest.json")))
problems, checked, listed = [], 0, set()

def sha(data):
    return hashlib.sha256(data).hexdigest()

def expect(what, got, want):
    global checked
    checked += 1
    if got != want:
        problems.append(f"{what}: sha256 {got}, manifest says {want}")

def file_entry(rec, path_key, where):
    """rec[path_key] names a file under testdata/gguf; check <path_key>_sha256 and _data_sha256."""
    rel = rec[path_key]
    path = os.path.join(gguf, rel)
    listed.add(os.path.normpath(path))
    data = open(path, "rb").read()
    if f"{path_key}_sha256" in rec:
        expect(f"{where} {rel}", sha(data), rec[f"{path_key}_sha256"])
    if f"{path_key}_data_sha256" in rec:  # the array's bytes, without the .npy header
        expect(f"{where} {rel} (data)", sha(np.load(path).tobytes()), rec[f"{path_key}_data_sha256"])

known = {"sha256", "bin_sha256", "expected_sha256", "expected_data_sha256", "expected_native_sha256", "raw_sha256"}
for name, f in m["files"].items():
    data = open(os.path.join(root, name), "rb").read()
    expect(name, sha(data), f["sha256"])
    for t in f["tensors"]:
        raw = data[t["file_offset"]:t["file_offset"] + t["nbytes"]]
        expect(f"{name} tensor {t['name']} bytes", sha(raw), t["raw_sha256"])
        for key in ("expected", "expected_native"):
            if key in t:
                file_entry(t, key, f"{name} tensor {t['name']}")
        problems += [f"{t['name']}: unchecked field {k}" for k in t if "sha256" in k and k not in known]
for b in m["blocks"]:
    file_entry(b, "bin", "blocks")
    file_entry(b, "expected", "blocks")
    problems += [f"{b['bin']}: unchecked field {k}" for k in b if "sha256" in k and k not in known]

for dirpath, _, names in os.walk(gguf):
    for n in names:
        p = os.path.normpath(os.path.join(dirpath, n))
        if p not in listed:
            problems.append(f"{os.path.relpath(p, root)} is not in the manifest")
if checked < 100:
    problems.append(f"only {checked} hashes checked")
print(f"{checked} sha256 values checked, {len(listed)} files listed")
assert not problems, "\n".join(problems[:20])
PY
finish
