#!/usr/bin/env python3
"""Checks that the links in Markdown files lead somewhere.

    check_links.py FILE.md...

Every relative link target (inline `[text](target)`, image, reference definition
`[name]: target`, HTML `href=`/`src=`) must name a file or folder that exists, and every
`#anchor` must name a heading (GitHub's slug) or an explicit `id=`/`name=` anchor of the file it
points into. A reference link `[text][name]` needs its definition. A repository script named in
the text (`scripts/NAME`) must exist, since the README quotes figures beside the script that
printed them. Links with a scheme (https:, mailto:) are not fetched. Prints one line per broken
link (file:line: what) and exits 1 if there is any.
"""
import os
import re
import sys
import urllib.parse

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_USE = re.compile(r"(?<!\])\[((?:[^\[\]]|\[[^\]]*\])+)\]\[([^\]]*)\]")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S*?)>?(?:\s+.*)?$")
HTML_TARGET = re.compile(r"\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']")
HTML_ANCHOR = re.compile(r"\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCRIPT_NAME = re.compile(r"(?<![\w/.-])scripts/([A-Za-z0-9_][A-Za-z0-9_.-]*)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def github_slug(heading):
    """The anchor GitHub gives a heading: markup dropped, lower case, punctuation removed."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<!\w)_|_(?!\w)", "", text)  # emphasis underscores, not snake_case ones
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


class Page:
    """A Markdown file's lines outside code blocks, and the anchors it defines."""

    def __init__(self, path):
        self.path = path
        self.lines = []  # (line number, text outside fenced blocks)
        self.anchors = set()
        in_fence = None
        counts = {}
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                fence = FENCE.match(line)
                if fence:
                    if in_fence is None:
                        in_fence = fence.group(1)
                    elif fence.group(1) == in_fence:
                        in_fence = None
                    continue
                if in_fence is not None:
                    continue
                self.lines.append((number, line.rstrip("\n")))
                heading = HEADING.match(line)
                if heading:
                    slug = github_slug(heading.group(2))
                    # GitHub numbers repeated headings: slug, slug-1, slug-2 ...
                    seen = counts.get(slug, 0)
                    counts[slug] = seen + 1
                    self.anchors.add(slug if seen == 0 else f"{slug}-{seen}")
                self.anchors.update(HTML_ANCHOR.findall(line))


def repository_root(path):
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(folder, ".git")) or os.path.isdir(os.path.join(folder, "scripts")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.dirname(os.path.abspath(path))
        folder = parent


pages = {}


def page(path):
    path = os.path.realpath(path)
    if path not in pages:
        pages[path] = Page(path)
    return pages[path]


def check_target(source, number, target, problems):
    if not target or SCHEME.match(target):
        return
    file_part, _, anchor = target.partition("#")
    file_part = urllib.parse.unquote(file_part)
    anchor = urllib.parse.unquote(anchor)
    if file_part:
        base = repository_root(source.path) if file_part.startswith("/") else os.path.dirname(source.path)
        resolved = os.path.normpath(os.path.join(base, file_part.lstrip("/")))
        if not os.path.exists(resolved):
            problems.append(f"{source.path}:{number}: link to a missing file: {target}")
            return
    else:
        resolved = source.path
    if anchor:
        if not os.path.isfile(resolved) or not resolved.endswith(".md"):
            problems.append(f"{source.path}:{number}: anchor into a file that is not Markdown: {target}")
        elif anchor not in page(resolved).anchors:
            problems.append(f"{source.path}:{number}: link to a missing section: {target}")


def check_page(path, problems):
    source = page(path)
    root = repository_root(path)
    definitions = {}
    for number, line in source.lines:
        definition = REFERENCE_DEF.match(line)
        if definition:
            definitions[definition.group(1).strip().lower()] = (number, definition.group(2))
    for name, (number, target) in definitions.items():
        check_target(source, number, target, problems)
    for number, line in source.lines:
        if REFERENCE_DEF.match(line):
            continue
        for script in SCRIPT_NAME.findall(line):
            if not os.path.exists(os.path.join(root, "scripts", script.rstrip("."))):
                problems.append(f"{source.path}:{number}: names a missing script: scripts/{script}")
        text = CODE_SPAN.sub("", line)  # links are not links inside code spans
        for target in INLINE.findall(text):
            check_target(source, number, target, problems)
        for target in HTML_TARGET.findall(text):
            check_target(source, number, target, problems)
        for label, name in REFERENCE_USE.findall(text):
            key = (name or label).strip().lower()
            if key not in definitions:
                problems.append(f"{source.path}:{number}: reference link without a definition: [{label}][{name}]")


def main(paths):
    if not paths:
        print("usage: check_links.py FILE.md...", file=sys.stderr)
        return 2
    problems = []
    for path in paths:
        check_page(path, problems)
    for message in problems:
        print(message)
    print(f"{len(paths)} file(s), {len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
