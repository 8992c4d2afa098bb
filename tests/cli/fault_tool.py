"""Test helper for the fault tests (regressions.sh, faults.sh).

fault_tool.py big-gguf OUT.gguf MIB: a GGUF with one F16 tensor 'big.weight' of MIB MiB of data,
    written sparse (a hole reads as zeros), so it costs no disk and no time to make.
fault_tool.py cut-when-mapped FILE SIZE COMMAND...: runs COMMAND (its output streams are this
    tool's), stops it as soon as FILE appears among its memory mappings (polling
    /proc/PID/maps), truncates FILE to SIZE bytes and lets it go on; exits with COMMAND's
    status (128 + the signal that killed it), or 125 when COMMAND ended before it mapped FILE.
    Starting COMMAND here, not beside it, leaves no start-up delay for a fast command to win.
"""
import os
import signal
import struct
import subprocess
import sys


def big_gguf(path, mib):
    count = mib * (1 << 20) // 2
    name = b"big.weight"
    header = struct.pack("<4sIQQ", b"GGUF", 3, 1, 0)
    header += struct.pack("<Q", len(name)) + name + struct.pack("<I", 1) + struct.pack("<Q", count)
    header += struct.pack("<IQ", 1, 0)  # F16, offset 0
    header += b"\0" * ((-len(header)) % 32)
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(len(header) + 2 * count)


def is_mapped(pid, target):
    try:
        with open(f"/proc/{pid}/maps") as f:
            return any(line.endswith(" " + target) for line in f.read().splitlines())
    except OSError:
        return False


def cut_when_mapped(file, size, command):
    target = os.path.realpath(file)
    child = subprocess.Popen(command)
    stopped = False
    while child.poll() is None:
        if is_mapped(child.pid, target):
            os.kill(child.pid, signal.SIGSTOP)
            stopped = True
            break
    if not stopped:
        print(f"fault_tool: {command[0]} ended before it mapped {file}", file=sys.stderr)
        return 125
    os.truncate(file, size)
    os.kill(child.pid, signal.SIGCONT)
    status = child.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    if sys.argv[1] == "big-gguf":
        big_gguf(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "cut-when-mapped":
        sys.exit(cut_when_mapped(sys.argv[2], int(sys.argv[3]), sys.argv[4:]))
    else:
        sys.exit("usage: fault_tool.py big-gguf OUT MIB | cut-when-mapped FILE SIZE COMMAND...")
