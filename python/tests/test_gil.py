"""The GIL is released while the library decodes: two Python threads decoding at once (one
OpenMP thread per call, so only the GIL could serialize them) are both inside the decoder at the
same time, and take clearly less than twice the time of one.

Both are judged so that a loaded machine cannot fake a pass: with the GIL held, the decodes of
two threads never overlap and two threads always take at least twice as long as one, whatever
the load. A busy machine can hide both (another process takes a core, or one thread runs all its
calls before the other is scheduled), so each gets up to ROUNDS short rounds and passes on the
first round that shows it; no round can show it while the GIL is held."""

import threading
import time

import numpy as np
import pytest

import gguf_tool
import onnxq
from onnxq import quants

ELEMENTS = 1 << 20  # 4 MiB of float32 per call: decode time, not page faults, dominates
CALLS = 40  # per thread and round: some tens of milliseconds of decoding
ROUNDS = 20


@pytest.fixture(scope="module")
def tensor(tmp_path_factory):
    rng = np.random.default_rng(24)
    blocks = ELEMENTS // 256
    q4_k = rng.integers(0, 256, size=(blocks, 144), dtype=np.uint8)
    q4_k[:, :4] = np.frombuffer(np.array([0.01, 0.001] * blocks, "<f2").tobytes(), np.uint8).reshape(blocks, 4)
    path = tmp_path_factory.mktemp("gil") / "big.gguf"
    gguf_tool.write_gguf(str(path), [], [[b"w", (ELEMENTS // 1024, 1024)[::-1], 12, 0, q4_k.tobytes()]], 32)
    with onnxq.open(path) as m:
        yield m["w"], q4_k


def run_threads(count, work):
    """Runs work() CALLS times on each of `count` threads at once; returns the wall time and each
    thread's (start, end) intervals of the calls."""
    intervals = [[] for _ in range(count)]
    barrier = threading.Barrier(count + 1)

    def worker(i):
        barrier.wait()
        for _ in range(CALLS):
            start = time.perf_counter()
            work()
            intervals[i].append((start, time.perf_counter()))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start, intervals


def overlap(a, b):
    return sum(max(0.0, min(x1, y1) - max(x0, y0)) for x0, x1 in a for y0, y1 in b)


@pytest.mark.parametrize("path", ["Tensor.numpy", "quants.dequantize", "onnxq.dequantize"])
def test_two_threads_decode_at_once(tensor, path):
    t, raw = tensor
    work = {
        "Tensor.numpy": lambda: t.numpy(threads=1),
        "quants.dequantize": lambda: quants.dequantize(raw, 12, threads=1),
        "onnxq.dequantize": lambda: onnxq.dequantize(raw.reshape(-1), "gguf:q4_k", [ELEMENTS], threads=1),
    }[path]
    work()  # warm: the output memory, the kernels
    overlapped, ratios = False, []
    for _ in range(ROUNDS):
        one, _ = run_threads(1, work)
        two, (a, b) = run_threads(2, work)
        overlapped |= overlap(a, b) > 0.5 * min(sum(y - x for x, y in a), sum(y - x for x, y in b))
        ratios.append(two / one)
        if overlapped and min(ratios) < 1.6:
            return
    assert overlapped, f"in {ROUNDS} rounds the two threads' decodes never overlapped: the GIL was held"
    pytest.fail(f"two threads took {min(ratios):.2f}x one thread at best in {ROUNDS} rounds "
                f"(expected < 1.6x; the GIL serializes to >= 2x): {[round(r, 2) for r in ratios]}")
