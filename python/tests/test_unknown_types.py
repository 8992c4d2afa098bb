"""A tensor of a ggml type onnxq does not know (142): onnxq.open lists it (type "type 142", no format,
its bytes inferred from the layout), raw() gives those bytes, numpy() raises naming the type, and the
other tensors decode; local and remote (the loopback test server), little- and big-endian."""

import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import onnxq
import unknown_type_files
from conftest import CLI_TESTS

for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
            "NO_PROXY", "HF_TOKEN", "ONNXQ_TIMEOUT", "CURL_CA_BUNDLE"):
    os.environ.pop(var, None)

U = "blk.0.ffn_down.weight"
NAMES = ["mid", "last", "mid-be", "last-be"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(local folder, base URL) of the files unknown_type_files.py writes."""
    root = tmp_path_factory.mktemp("root")
    unknown_type_files.main(str(root))
    port_file = root.parent / "port"
    server = subprocess.Popen([sys.executable, str(CLI_TESTS / "range_server.py"), str(root),
                               str(root.parent / "requests.log"), str(port_file)])
    try:
        for _ in range(200):
            if port_file.exists() and port_file.read_text():
                break
            time.sleep(0.05)
        yield root, f"http://127.0.0.1:{port_file.read_text()}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("where", ["local", "remote"])
def test_open_lists_the_unknown_tensor(served, name, where):
    root, base = served
    want = json.loads((root / "expect.json").read_text())[name][U]
    path = str(root / f"{name}.gguf") if where == "local" else f"{base}/files/{name}.gguf"
    with onnxq.open(path) as m:
        assert [t.name for t in m.tensors] == list(json.loads((root / "expect.json").read_text())[name])
        t = m[U]
        assert (t.type, t.ggml_type, t.format, t.shape, t.nbytes) == ("type 142", 142, None, (128,), want["bytes"])
        assert hashlib.sha256(t.raw().tobytes()).hexdigest() == want["sha256"]
        with pytest.raises(onnxq.InvalidInputError, match="ggml type 142, which onnxq does not know"):
            t.numpy()
        embd = np.array([(i % 7) - 3 for i in range(128)], dtype=np.float32).reshape(2, 64)
        assert np.array_equal(m["token_embd.weight"].numpy(), embd)
        assert np.array_equal(m["output_norm.weight"].numpy(), np.arange(64, dtype=np.float32) / 8)
