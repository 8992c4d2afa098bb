"""Prints the step count, summed step time and the slowest steps of a .ninja_log (scripts/bench-builds)."""
import sys


def main(path, top):
    steps = {}
    with open(path) as log:
        for line in log:
            if line.startswith("#"):
                continue
            start, end, _mtime, output, _hash = line.rstrip("\n").split("\t")
            steps[output] = int(end) - int(start)  # a later run of the same output replaces it
    total = sum(steps.values())
    print(f"bench-builds: {len(steps)} steps, {total / 1000:.1f} s summed step time; slowest:")
    for output, ms in sorted(steps.items(), key=lambda s: -s[1])[:top]:
        print(f"{ms / 1000:8.1f} s  {output}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15)
