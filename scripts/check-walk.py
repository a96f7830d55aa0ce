#!/usr/bin/env python3
"""Fails when the request walk of docs/architecture.md names something its files do not hold.

The section "One request, file by file" follows `/v1/footprints` from its route line to the bytes
on the wire, one numbered step per file (issue #27). Each step (and the closing paragraph about
the client) names `crates/…` files and, in backticks, the functions, types and values it passes.
Every name must be found in one of the files its own step names: a word of a backticked name
(`crate::limit::check_account` gives `limit` and `check_account`) must stand in one of those files
as a whole word. Header names (`Accept-Encoding`), URL paths and Rust keywords are not names.

    scripts/check-walk.py     # lists each name not found with its step; exit 1 if any
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## One request, file by file"

PATH_RE = re.compile(r"crates/[\w./-]+\.rs")
CODE_RE = re.compile(r"`([^`]+)`")
WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
HEADER_RE = re.compile(r"^[A-Z][A-Za-z]*(-[A-Z][A-Za-z]*)+$")
KEYWORDS = {"crate", "impl", "for", "self", "super", "use", "fn", "pub", "mod"}


def steps(text: str) -> list[tuple[str, str]]:
    """(label, text) of each step of the walk and of the paragraph that ends it."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    body = text[start + len(SECTION) : end if end >= 0 else len(text)]
    found = []
    for paragraph in re.split(r"\n\s*\n", body):
        for chunk in re.split(r"\n(?=\d+\. )", paragraph.strip()):
            if PATH_RE.search(chunk):
                label = chunk.split(".", 1)[0] if chunk[0].isdigit() else "client paragraph"
                found.append((label, chunk))
    return found


def names(chunk: str) -> set[str]:
    words = set()
    for code in CODE_RE.findall(chunk):
        if code.startswith(("crates/", "/")) or HEADER_RE.match(code):
            continue
        code = re.sub(r'"[^"]*"', "", code)  # a string inside a route line is a URL path
        words.update(w for w in WORD_RE.findall(code) if w not in KEYWORDS)
    return words


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    missing = []
    walk = steps(text)
    if len(walk) < 5:
        print(f"check-walk: found {len(walk)} steps in {DOC.name}; is the section still there?")
        return 1
    for label, chunk in walk:
        paths = sorted(set(PATH_RE.findall(chunk)))
        absent = [p for p in paths if not (ROOT / p).is_file()]
        if absent:
            missing.extend(f"step {label}: no file {p}" for p in absent)
            continue
        source = "\n".join((ROOT / p).read_text(encoding="utf-8") for p in paths)
        for word in sorted(names(chunk)):
            if not re.search(rf"\b{re.escape(word)}\b", source):
                missing.append(f"step {label}: `{word}` is in none of {', '.join(paths)}")
    for line in missing:
        print(line)
    if missing:
        return 1
    print(f"check-walk: ok ({len(walk)} steps, every name found in its step's files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
