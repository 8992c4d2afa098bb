"""Test helper: reads the GitHub tables out of a markdown document and checks their shape.

tables(text) -> [(heading, header cells, rows of cells)], cells unescaped (\\| -> |) and stripped,
code spans kept with their backticks. Raises AssertionError for a table whose rows do not all have
the header's cell count, or whose second line is not the alignment row.
"""
import re

SPLIT = re.compile(r"(?<!\\)\|")


def cells(line):
    parts = SPLIT.split(line.strip())
    assert parts[0] == "" and parts[-1] == "", f"a table line must start and end with '|': {line!r}"
    return [p.strip().replace("\\|", "|") for p in parts[1:-1]]


def tables(text):
    found, heading, block = [], None, []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            header, align, *rows = [cells(b) for b in block]
            assert all(re.fullmatch(r"-{3,}:?", a) for a in align), f"not an alignment row: {block[1]!r}"
            for r in [align] + rows:
                assert len(r) == len(header), f"{len(r)} cells under a {len(header)}-column header: {r}"
            found.append((heading, header, rows))
            block = []
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
    return found
