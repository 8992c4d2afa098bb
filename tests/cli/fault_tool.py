"""Test helper for the fault tests (regressions.sh, faults.sh).

fault_tool.py big-gguf OUT.gguf MIB: a GGUF with one F16 tensor 'big.weight' of MIB MiB of data,
    written sparse (a hole reads as zeros), so it costs no disk and no time to make.
fault_tool.py stop-when-mapped PID FILE [SECONDS]: sends SIGSTOP to PID as soon as FILE appears
    among its memory mappings (polling /proc/PID/maps); exit 1 when the process ends first or
    the time runs out.
"""
import os
import signal
import struct
import sys
import time


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


def stop_when_mapped(pid, file, seconds):
    target = os.path.realpath(file)
    maps = f"/proc/{pid}/maps"
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(maps) as f:
                text = f.read()
        except OSError:
            return 1  # the process is gone
        if any(line.endswith(" " + target) for line in text.splitlines()):
            os.kill(pid, signal.SIGSTOP)
            return 0
    return 1


if __name__ == "__main__":
    if sys.argv[1] == "big-gguf":
        big_gguf(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "stop-when-mapped":
        sys.exit(stop_when_mapped(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 30))
    else:
        sys.exit("usage: fault_tool.py big-gguf OUT MIB | stop-when-mapped PID FILE [SECONDS]")
