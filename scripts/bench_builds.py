"""scripts/bench-builds' helper.

  bench_builds.py launch LOG COMMAND...  runs a compile (the build's compiler launcher) and appends
                                         its CPU seconds (user+sys) and output file to LOG
  bench_builds.py report LOG NINJA_LOG N prints the step count, summed CPU and wall step time, CPU
                                         by folder, and the N steps that took the most CPU
The machine may be shared: .ninja_log holds wall times, inflated by other work; CPU times are not.
"""
import collections
import os
import resource
import subprocess
import sys


def launch(log, command):
    status = subprocess.call(command)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = command[command.index("-o") + 1] if "-o" in command else "?"
    with open(log, "a") as f:
        f.write(f"{usage.ru_utime + usage.ru_stime:.3f}\t{output}\n")
    return status


def report(log, ninja_log, top):
    wall = {}
    with open(ninja_log) as f:
        for line in f:
            if not line.startswith("#"):
                start, end, _mtime, output, _hash = line.rstrip("\n").split("\t")
                wall[output] = (int(end) - int(start)) / 1000
    cpu = {}
    if not os.path.exists(log):  # PER_FILE=0
        print(f"bench-builds: {len(wall)} steps, {sum(wall.values()):.1f} s summed step wall time")
        return
    with open(log) as f:
        for line in f:
            seconds, output = line.rstrip("\n").split("\t")
            cpu[output] = float(seconds)
    print(f"bench-builds: {len(wall)} steps, {len(cpu)} compiles: {sum(cpu.values()):.1f} CPU-s compiling,"
          f" {sum(wall.values()):.1f} s summed step wall time")
    folders = collections.Counter()
    for output, seconds in cpu.items():
        folders[output.split(".dir/")[0].split("CMakeFiles/")[-1] if ".dir/" in output else "?"] += seconds
    print("CPU-s by target: " + ", ".join(f"{name} {s:.0f}" for name, s in folders.most_common()))
    print("most CPU (CPU-s, wall s, output):")
    for output, seconds in sorted(cpu.items(), key=lambda s: -s[1])[:top]:
        print(f"{seconds:7.1f} {wall.get(output, 0):7.1f}  {output}")


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        sys.exit(launch(sys.argv[2], sys.argv[3:]))
    report(sys.argv[2], sys.argv[3], int(sys.argv[4]))
