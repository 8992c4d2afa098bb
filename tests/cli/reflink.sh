#!/usr/bin/env bash
# Block sharing (doc/writing.md): on a file system that shares blocks (XFS with reflink), `onnxq edit`
# to a new file and `--in-place` share the tensor data with the input instead of copying it. A 1 GiB
# model is made on a fresh XFS image; after each edit, filefrag shows `shared` extents covering all but
# a few blocks of the new file, the file system's used space grows by far less than the file, the
# tensors are byte for byte the input's (gguf_compare.py) and `onnxq check` passes.
# Runs as root: it makes an XFS file system (xfsprogs, from scripts/setup --test) in an image on
# /dev/shm, attaches it to a loop device and mounts it; every exit unmounts and removes all three.
# Failing to make or mount it is a failure, not a skip.
source "$(dirname "$0")/common.bash"
TOOLS=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "reflink.sh mounts an XFS image on a loop device: run it as root" >&2; exit 1; }
IMAGE=$(mktemp /dev/shm/onnxq-reflink.XXXXXX)
LOOP=
# (A trap runs under set -e: each step must not fail.)
trap 'cd /; umount -l "$WORK/fs" 2>/dev/null || true; [ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
      rm -f "$IMAGE"; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM  # ctest's time-out: clean up on the way out too
trap 'exit 130' INT
cd "$WORK"
mkdir fs
truncate -s 4G "$IMAGE"  # sparse on tmpfs: room for two unshared copies, should sharing fail
mkfs.xfs -q -m reflink=1 "$IMAGE" || { echo "mkfs.xfs -m reflink=1 failed" >&2; exit 1; }
LOOP=$(losetup --find --show "$IMAGE") || { echo "no loop device" >&2; exit 1; }
mount -t xfs "$LOOP" fs || { echo "cannot mount the XFS image ($LOOP)" >&2; exit 1; }
cd fs

# model.gguf: a small F32 tensor (4000 bytes, so that the big one does not start on a block) and an
# F16 tensor of 512 Mi elements (1 GiB) whose values vary, written in chunks.
"$PYTHON" - <<'PY'
import struct
import numpy as np
def s(b):
    return struct.pack("<Q", len(b)) + b
n_big = 512 << 20
head = struct.pack("<4sIQQ", b"GGUF", 3, 2, 1) + s(b"general.architecture") + struct.pack("<I", 8) + s(b"llama")
head += s(b"small.weight") + struct.pack("<IQIQ", 1, 1000, 0, 0)
head += s(b"big.weight") + struct.pack("<IQQIQ", 2, 4096, n_big // 4096, 1, 4000)
head += b"\0" * (-len(head) % 32)
with open("model.gguf", "wb") as f:
    f.write(head)
    f.write(np.linspace(-1, 1, 1000, dtype=np.float32).tobytes())
    chunk = 32 << 20
    base = np.arange(chunk, dtype=np.uint32)
    for k in range(n_big // chunk):
        f.write((((base * 2654435761 + k * 7919) >> 9) & 0x3bff).astype(np.uint16).tobytes())
PY
size=$(stat -c %s model.gguf)
[ "$size" -gt $((1 << 30)) ] || { echo "model.gguf is $size bytes" >&2; exit 1; }

used() { sync -f .; df -B1 --output=used . | tail -1 | tr -d ' '; }
# shared FILE: the bytes of FILE that filefrag -v marks shared.
shared() {
  filefrag -v "$1" | "$PYTHON" -c '
import re, sys
text = sys.stdin.read()
block = int(re.search(r"blocks of (\d+) bytes", text).group(1))
print(sum(int(m.group(1)) for m in re.finditer(r"^\s*\d+:\s*\d+\.\.\s*\d+:\s*\d+\.\.\s*\d+:\s*(\d+):.*shared", text, re.M)) * block)'
}
# mostly_shared FILE: all but 64 KiB of FILE lies in shared extents.
mostly_shared() {
  local s
  s=$(shared "$1")
  echo "$1: $s of $(stat -c %s "$1") bytes shared"
  [ "$s" -ge $(($(stat -c %s "$1") - 65536)) ]
}
# grew_little BEFORE AFTER: the used space grew by less than 1% of the model plus 1 MiB.
# same_tensors A B: the same tensors (names, shapes, types, bytes), read by gguf_tool.py over maps of
# the files (gguf_compare.py reads whole files: 20 s a pair here).
same_tensors() {
  "$PYTHON" - "$TOOLS" "$1" "$2" <<'PY'
import mmap, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from gguf_tool import read_gguf
def tensors(path):
    with open(path, "rb") as f:
        return read_gguf(memoryview(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)))[1]
a, b = tensors(sys.argv[2]), tensors(sys.argv[3])
assert [(bytes(t[0]), t[1], t[2]) for t in a] == [(bytes(t[0]), t[1], t[2]) for t in b], "tensor lists differ"
for x, y in zip(a, b):
    n = min(len(x[4]), len(y[4]))  # raw runs to the next tensor: its bytes, then padding
    assert n > 0 and np.array_equal(np.frombuffer(x[4][:n], np.uint8), np.frombuffer(y[4][:n], np.uint8)), \
        "tensor %s differs" % bytes(x[0]).decode()
PY
}
grew_little() {
  echo "used space grew by $(($2 - $1)) bytes"
  [ $(($2 - $1)) -lt $((size / 100 + (1 << 20))) ]
}
check "the input passes check" "$ONNXQ" check model.gguf >/dev/null

# An edit to a new file: the header grows by a key, the data keeps its place modulo 4096.
u0=$(used)
"$ONNXQ" edit model.gguf -o edited.gguf --set general.name=str:reflink
u1=$(used)
check "edit: the new file's data is shared" mostly_shared edited.gguf
check "edit: the file system grew by far less than the file" grew_little "$u0" "$u1"
check "edit: the tensors are the input's" same_tensors model.gguf edited.gguf
check "edit: the output passes check" "$ONNXQ" check edited.gguf >/dev/null

# --in-place: a longer header still, the file replaced by one that shares the old one's blocks. A
# hard link keeps the old file, so that its blocks are not freed and the growth is the new file's.
ln edited.gguf before.gguf
"$ONNXQ" edit edited.gguf --in-place --chat-template "{{ messages }} $(head -c 5000 /dev/zero | tr '\0' x)"
u2=$(used)
check "in place: a new file" test "$(stat -c %i edited.gguf)" != "$(stat -c %i before.gguf)"
check "in place: the file's data is shared" mostly_shared edited.gguf
check "in place: the file system grew by far less than the file" grew_little "$u1" "$u2"
check "in place: the tensors are the input's" same_tensors model.gguf edited.gguf
check "in place: the output passes check" "$ONNXQ" check edited.gguf >/dev/null
check "in place: no temporary left" test "$(ls -A)" = "$(printf 'before.gguf\nedited.gguf\nmodel.gguf')"
finish
