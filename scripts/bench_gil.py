"""Two Python threads decoding at once against one thread doing the same calls (scripts/bench-gil
runs it): what releasing the GIL buys a program that loads tensors from several threads. The proof
that the GIL is released, which involves no timing, is python/tests/test_gil.py; this only measures.

Per path: 10 calls of a 4 Mi-element Q4_K decode at threads=1 on each of 1 and 2 Python threads,
interleaved for --rounds rounds; printed is the ratio of the best two-thread time to the best
one-thread time (1.0x: the threads ran side by side; 2.0x: they were serialized, as by a held GIL).
Run it on a quiet machine with 2 or more cores.
"""

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cli"))  # gguf_tool: an independent GGUF writer
import gguf_tool  # noqa: E402
import onnxq  # noqa: E402
from onnxq import quants  # noqa: E402

ELEMENTS = 4 << 20
CALLS = 10


def run_threads(count, work):
    """Calls work() CALLS times on each of `count` threads at once; returns the wall time."""
    barrier = threading.Barrier(count + 1)

    def worker():
        barrier.wait()
        for _ in range(CALLS):
            work()

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(24)
    blocks = ELEMENTS // 256
    q4_k = rng.integers(0, 256, size=(blocks, 144), dtype=np.uint8)
    q4_k[:, :4] = np.frombuffer(np.array([0.01, 0.001] * blocks, "<f2").tobytes(), np.uint8).reshape(blocks, 4)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.gguf"
        gguf_tool.write_gguf(str(path), [], [[b"w", (1024, ELEMENTS // 1024), 12, 0, q4_k.tobytes()]], 32)
        with onnxq.open(path) as model:
            tensor = model["w"]
            paths = {
                "Tensor.numpy": lambda: tensor.numpy(threads=1),
                "quants.dequantize": lambda: quants.dequantize(q4_k, 12, threads=1),
                "onnxq.dequantize": lambda: onnxq.dequantize(q4_k.reshape(-1), "gguf:q4_k", [ELEMENTS], threads=1),
            }
            print(f"{'path':<20} {'1 thread':>10} {'2 threads':>10} {'ratio':>7}   (best of {args.rounds} rounds)")
            for name, work in paths.items():
                run_threads(2, work)  # warm: kernels, pages, malloc's arenas for both threads
                one = two = float("inf")
                for _ in range(args.rounds):
                    one = min(one, run_threads(1, work))
                    two = min(two, run_threads(2, work))
                print(f"{name:<20} {one * 1e3:>8.1f}ms {two * 1e3:>8.1f}ms {two / one:>6.2f}x")


if __name__ == "__main__":
    main()
