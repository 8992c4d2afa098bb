#!/usr/bin/python3
"""Deterministic mutations of testdata files run through the onnxq CLI (used by mutations.sh).

Usage: mutations.py ONNXQ TESTDATA WORKDIR [GGUF_COUNT]
Every run must end with exit status 0, 2 or 3 within the time bound, and leave no temporary file.
Mutations: bit flips, truncations, byte insertions/deletions and length-field inflation (every
count, length, dimension and offset field of the GGUF is a target; the .npy header length too).
"""
import concurrent.futures
import os
import random
import shutil
import struct
import subprocess
import sys
import time

ONNXQ, TESTDATA, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
GGUF_COUNT = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
TIME_BOUND = float(os.environ.get("MUTATION_TIMEOUT", "20"))
HUGE = [2**64 - 1, 2**63, 2**63 - 1, 2**32, 2**32 - 1, 2**40 + 7, 2**31]


def gguf_fields(data):
    """Offsets and widths of every length/count/dimension/offset field of a little-endian GGUF v3."""
    fields = [(8, 8), (16, 8)]
    pos = 24
    n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def string(p):
        fields.append((p, 8))
        (n,) = struct.unpack_from("<Q", data, p)
        return p + 8 + n

    def value(p, t):
        if t in sizes:
            return p + sizes[t]
        if t == 8:
            return string(p)
        et, count = struct.unpack_from("<IQ", data, p)
        fields.append((p, 4))
        fields.append((p + 4, 8))
        p += 12
        for _ in range(count):
            p = value(p, et)
        return p

    for _ in range(n_kv):
        pos = string(pos)
        (t,) = struct.unpack_from("<I", data, pos)
        fields.append((pos, 4))
        pos = value(pos + 4, t)
    for _ in range(n_tensors):
        pos = string(pos)
        (nd,) = struct.unpack_from("<I", data, pos)
        fields.append((pos, 4))
        pos += 4
        for _ in range(nd):
            fields.append((pos, 8))
            pos += 8
        fields.append((pos, 4))  # type
        fields.append((pos + 4, 8))  # offset
        pos += 12
    return fields


def mutate(data, rng, fields):
    b = bytearray(data)
    kind = rng.randrange(6)
    if kind == 0:  # bit flips
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncation
        del b[rng.randrange(len(b)):]
    elif kind == 2 and fields:  # length-field inflation
        off, width = rng.choice(fields)
        old = int.from_bytes(b[off:off + width], "little")
        new = rng.choice(HUGE + [old + 1, old * 2 + 1, old + rng.randint(1, 64), max(old - 1, 0), 0])
        b[off:off + width] = (new % (1 << (8 * width))).to_bytes(width, "little")
    elif kind == 3:  # insertion
        i = rng.randrange(len(b) + 1)
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif kind == 4:  # deletion
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 16)]
    else:  # a random 8-byte word becomes huge
        i = rng.randrange(max(1, len(b) - 8))
        b[i:i + 8] = rng.choice(HUGE).to_bytes(8, "little")
    return bytes(b)


def has_dequant():
    listing = subprocess.run([ONNXQ, "--help"], capture_output=True, text=True).stdout
    return any(line.split()[:1] == ["dequant"] for line in listing.splitlines())


def run(args, outdir=None):
    start = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, timeout=TIME_BOUND, env=ENV)
    except subprocess.TimeoutExpired:
        return "timeout after %.0f s: %s" % (TIME_BOUND, " ".join(args))
    took = time.monotonic() - start
    if p.returncode not in (0, 2, 3):
        return "exit %d (%s) after %.2f s: %s\n  stderr: %s" % (
            p.returncode, "signal %d" % -p.returncode if p.returncode < 0 else "status",
            took, " ".join(args), p.stderr.decode(errors="replace")[-2000:])
    if p.returncode != 0 and not p.stderr.strip():
        return "exit %d without a message: %s" % (p.returncode, " ".join(args))
    if outdir:
        left = [n for n in os.listdir(outdir) if ".onnxq-" in n]
        if left:
            return "temporaries left in %s: %s (%s)" % (outdir, left, " ".join(args))
    return None


def job(index, kind, data):
    d = os.path.join(WORK, "m%d" % index)
    os.makedirs(d, exist_ok=True)
    errors = []
    try:
        if kind == "gguf":
            path = os.path.join(d, "in.gguf")
            with open(path, "wb") as f:
                f.write(data)
            errors.append(run([ONNXQ, "list", path]))
            if DEQUANT:
                out = os.path.join(d, "out")
                os.makedirs(out)
                errors.append(run([ONNXQ, "dequant", "--all", path, "-o", out, "--threads", "1"], out))
            else:
                errors.append(run([ONNXQ, "meta", path]))
        elif kind == "npy":
            path = os.path.join(d, "in.npy")
            with open(path, "wb") as f:
                f.write(data)
            errors.append(run([ONNXQ, "unsqueeze", path, "--axes", "0", "-o", os.path.join(d, "o.npy")], d))
        elif kind == "pb":
            path = os.path.join(d, "in.pb")
            with open(path, "wb") as f:
                f.write(data)
            errors.append(run([ONNXQ, "run", MODEL, "-i", path, "-i", COUNT_PB, "-o", d], d))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return [e for e in errors if e]


# One thread per run (the test pool runs one job per core; OMP_NUM_THREADS sets onnxq's default).
ENV = dict(os.environ, OMP_NUM_THREADS="1")
zoo = open(os.path.join(TESTDATA, "zoo.gguf"), "rb").read()
fields = gguf_fields(zoo)
DEQUANT = has_dequant()
case = os.path.join(TESTDATA, "onnx-node", "test_unpack_rows_5bit")
MODEL = os.path.join(case, "model.onnx")
COUNT_PB = os.path.join(case, "test_data_set_0", "input_1.pb")
rng = random.Random(20261201)
jobs = [("gguf", mutate(zoo, rng, fields)) for _ in range(GGUF_COUNT)]
for npy in ("ops/test_onehot_with_axis/input_0.npy", "ops/test_unsqueeze_axis_0/input_0.npy"):
    data = open(os.path.join(TESTDATA, npy), "rb").read()
    jobs += [("npy", mutate(data, rng, [(8, 2)])) for _ in range(150)]
x_pb = open(os.path.join(case, "test_data_set_0", "input_0.pb"), "rb").read()
jobs += [("pb", mutate(x_pb, rng, [])) for _ in range(200)]

start = time.monotonic()
failures, exits = [], 0
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    for errs in pool.map(lambda a: job(a[0], *a[1]), enumerate(jobs)):
        failures += errs
print("%d mutated inputs (%d GGUF, dequant %s) in %.1f s" % (
    len(jobs), GGUF_COUNT, "yes" if DEQUANT else "absent: meta instead", time.monotonic() - start))
for f in failures[:20]:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
