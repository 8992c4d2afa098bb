"""Remote models through the test range server (tests/cli/range_server.py on 127.0.0.1, started
and stopped here by its process id): http:// and hf:// read the same metadata, tensors and bytes
as the local file; HTTP failures are OSErrors; the GIL is released while waiting on the network."""

import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import gguf_tool
import onnxq
from conftest import CLI_TESTS, ZOO, ZOO_TENSORS, assert_same_bits, expected

# Nothing may leave the machine: no proxy, no token, the Hub is the test server.
for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
            "NO_PROXY", "HF_TOKEN", "ONNXQ_TIMEOUT", "CURL_CA_BUNDLE"):
    os.environ.pop(var, None)


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    shutil.copy(ZOO, root / "zoo.gguf")
    gguf_tool.split(ZOO, str(root / "zoo3"), 3)
    hub = root / "hf" / "org" / "repo" / "main"
    hub.mkdir(parents=True)
    shutil.copy(ZOO, hub / "zoo.gguf")
    port_file = root.parent / "port"
    server = subprocess.Popen([sys.executable, str(CLI_TESTS / "range_server.py"), str(root),
                               str(root.parent / "requests.log"), str(port_file)])
    try:
        for _ in range(200):
            if port_file.exists():
                break
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port_file.read_text()}"
        os.environ["HF_ENDPOINT"] = base
        yield base
    finally:
        os.environ.pop("HF_ENDPOINT", None)
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def same_metadata(a: dict, b: dict) -> bool:
    if list(a) != list(b):
        return False
    for key, value in a.items():
        other = b[key]
        if isinstance(value, np.ndarray):
            if value.dtype != other.dtype or value.tobytes() != other.tobytes():
                return False
        elif value != other and not (value != value and other != other):
            return False
    return True


@pytest.mark.parametrize("path", ["/files/zoo.gguf", "hf://org/repo/zoo.gguf", "/files/zoo3-00001-of-00003.gguf"])
def test_remote_model_equals_the_local_one(url, path):
    with onnxq.open(ZOO) as local, onnxq.open(path if path.startswith("hf:") else url + path) as remote:
        # a split model's first shard has the zoo's metadata and split.no/count/tensors.count
        assert same_metadata({k: v for k, v in remote.metadata.items() if not k.startswith("split.")}, local.metadata)
        assert [(t.name, t.type, t.shape, t.nbytes) for t in remote.tensors] == \
            [(t.name, t.type, t.shape, t.nbytes) for t in local.tensors]
        for e in ZOO_TENSORS:
            t = remote[e["name"]]
            want = expected(e) if "expected_native" not in e else local[e["name"]].numpy()
            assert_same_bits(t.numpy(), want, e["name"])
            assert_same_bits(t.numpy("float16"), local[e["name"]].numpy("float16"), e["name"] + " float16")
            out = np.full(t.n_elements, 0x5A, want.dtype)  # out=: the remote bytes decoded into it
            assert t.numpy(out=out) is out
            assert_same_bits(out.reshape(want.shape), want, e["name"] + " out=")
            raw = t.raw()
            assert raw.shape == local[e["name"]].raw().shape
            assert hashlib.sha256(raw.tobytes()).hexdigest() == e["raw_sha256"]
            assert raw.base is not None and not np.shares_memory(raw, local[e["name"]].raw())
        if "zoo3" in path:
            assert len(remote.shards) == 3


def test_http_failures_are_os_errors(url):
    with pytest.raises(FileNotFoundError, match="HTTP 404"):
        onnxq.open(url + "/files/absent.gguf")
    with pytest.raises(FileNotFoundError):
        onnxq.open("hf://org/repo/absent.gguf")
    with pytest.raises(PermissionError, match="access denied"):
        onnxq.open(url + "/status/403/zoo.gguf")
    os.environ["ONNXQ_TIMEOUT"] = "soon"
    try:
        with pytest.raises(ValueError, match="ONNXQ_TIMEOUT must be a positive number"):
            onnxq.open(url + "/files/zoo.gguf")
    finally:
        del os.environ["ONNXQ_TIMEOUT"]


def test_the_gil_is_released_while_waiting_on_the_network(url):
    """A stalled server: while one thread waits in open(), another runs Python. With the switch
    interval set to minutes, this thread gets the GIL while the other is inside open() only if
    open() let go of it (as in test_gil.py: no timing involved)."""
    outcome, state = {}, {"entered": False, "returned": False}

    def wait_on_stall():
        state["entered"] = True
        try:
            onnxq.open(url + "/stall/zoo.gguf")
        except OSError as e:
            outcome["error"] = e
        finally:
            state["returned"] = True

    os.environ["ONNXQ_TIMEOUT"] = "2"
    interval = sys.getswitchinterval()
    sys.setswitchinterval(300.0)  # no forced hand-over during the test
    met = False
    try:
        waiter = threading.Thread(target=wait_on_stall)
        waiter.start()
        while waiter.is_alive():
            met = met or (state["entered"] and not state["returned"])
            time.sleep(0.0005)  # lets go of the GIL, so the waiter never waits for this thread
        waiter.join(timeout=30)
    finally:
        sys.setswitchinterval(interval)
        del os.environ["ONNXQ_TIMEOUT"]
    assert not waiter.is_alive()
    assert "timed out" in str(outcome.get("error")), outcome
    assert met, "this thread ran only after open() had returned: the GIL was held while it waited"
