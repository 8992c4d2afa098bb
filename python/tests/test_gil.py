"""The GIL is released while the library decodes (one OpenMP thread per call, so only the GIL
could serialize Python threads), and while onnxq.hash reads and hashes a file.

With the switch interval set to minutes, Python hands the GIL to another thread only when the
holder lets go of it, so a thread sleeping beside a decoding one runs while the decoder is busy
only if a decode released the GIL. No timing is involved, and no load can fake or spoil it: the
decoding thread keeps going (60 s at most) until the other thread has run beside it. What the
release buys in speed is measured by scripts/bench-gil, not here.
"""

import sys
import threading
import time

import numpy as np
import pytest

import gguf_tool
import onnxq
from onnxq import quants

ELEMENTS = 4 << 20  # 16 MiB of float32 per call, from malloc's arenas after the first calls
GIVE_UP = 60.0  # seconds of decoding at most, for a thread that never sees the other run
PATHS = ["Tensor.numpy", "quants.dequantize", "onnxq.dequantize"]
OUT_PATHS = [p + "(out=)" for p in PATHS]  # decoding into the caller's array releases it too


@pytest.fixture(scope="module")
def tensor(tmp_path_factory):
    rng = np.random.default_rng(24)
    blocks = ELEMENTS // 256
    q4_k = rng.integers(0, 256, size=(blocks, 144), dtype=np.uint8)
    q4_k[:, :4] = np.frombuffer(np.array([0.01, 0.001] * blocks, "<f2").tobytes(), np.uint8).reshape(blocks, 4)
    path = tmp_path_factory.mktemp("gil") / "big.gguf"
    gguf_tool.write_gguf(str(path), [], [[b"w", (ELEMENTS // 1024, 1024)[::-1], 12, 0, q4_k.tobytes()]], 32)
    with onnxq.open(path) as m:
        yield m["w"], q4_k, path


def decoder(tensor, path):
    t, raw, file = tensor
    out = np.empty(ELEMENTS, np.float32)
    return {
        "onnxq.hash": lambda: onnxq.hash(file, ("xxh64", "sha256"), threads=1),
        "Tensor.numpy": lambda: t.numpy(threads=1),
        "quants.dequantize": lambda: quants.dequantize(raw, 12, threads=1),
        "onnxq.dequantize": lambda: onnxq.dequantize(raw.reshape(-1), "gguf:q4_k", [ELEMENTS], threads=1),
        "Tensor.numpy(out=)": lambda: t.numpy(threads=1, out=out),
        "quants.dequantize(out=)": lambda: quants.dequantize(raw, 12, threads=1, out=out),
        "onnxq.dequantize(out=)": lambda: onnxq.dequantize(raw.reshape(-1), "gguf:q4_k", [ELEMENTS], threads=1,
                                                           out=out),
    }[path]


@pytest.mark.parametrize("path", PATHS + OUT_PATHS + ["onnxq.hash"])
def test_another_thread_runs_during_decodes(tensor, path):
    work = decoder(tensor, path)
    work()
    ready, met = threading.Event(), threading.Event()
    calls, done, errors = [0], [False], []

    def worker():
        ready.set()  # the observer wakes, but needs the GIL, which this thread holds until it lets go
        give_up = time.monotonic() + GIVE_UP
        try:
            while not met.is_set() and time.monotonic() < give_up:
                work()
                calls[0] += 1
        except Exception as e:  # re-raised below: a failed decode is no proof either way
            errors.append(e)
        finally:
            done[0] = True

    interval = sys.getswitchinterval()
    sys.setswitchinterval(300.0)  # no forced hand-over during the test
    try:
        t = threading.Thread(target=worker)
        t.start()
        ready.wait()
        while t.is_alive():
            if not done[0]:
                met.set()  # this thread holds the GIL before the worker is done: a decode let go of it
            time.sleep(0.0005)  # lets go of the GIL, so the worker never waits for this thread
        t.join()
    finally:
        sys.setswitchinterval(interval)
    if errors:
        raise errors[0]
    assert met.is_set(), f"this thread ran only after {calls[0]} decodes ({GIVE_UP:.0f} s) had ended: the GIL was held"
