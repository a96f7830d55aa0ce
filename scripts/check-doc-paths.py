#!/usr/bin/env python3
"""Fails when README.md or docs/*.md name a `crates/…` path that does not exist, or when
docs/README.md (the index of docs/) does not link a page of docs/.

Every token that starts with `crates/` (also inside `../crates/…` links) is taken as a path from
the repository's root, up to the first character that cannot be part of one; trailing `.`, `:`
and a `:LINE` suffix are dropped. `*` is a glob, and a placeholder for a name (`NAME`, `<name>`,
`{name}`, `…`) stands for any name: the path exists when something matches.

    scripts/check-doc-paths.py          # lists each missing path with where it is named; exit 1 if any
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TOKEN_RE = re.compile(r"(?<![\w.-])crates/[\w./*<>{}…-]*")
PLACEHOLDER_RE = re.compile(r"<[^<>/]*>|\{[^{}/]*\}|…|\bNAME\b")


def clean(token: str) -> str:
    token = re.sub(r":\d+$", "", token)
    return token.rstrip(".:")


def exists(path: str) -> bool:
    pattern = PLACEHOLDER_RE.sub("*", path)
    if "*" in pattern:
        return any(ROOT.glob(pattern.rstrip("/")))
    return (ROOT / path).exists()


def main() -> int:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for doc in docs:
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in TOKEN_RE.finditer(line):
                path = clean(m.group(0))
                if path != "crates/" and not exists(path):
                    missing.append(f"{doc.relative_to(ROOT)}:{n}: {path}")
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    unindexed = [d.name for d in docs[1:] if d.name != "README.md" and d.name not in linked]
    for entry in missing:
        print(entry)
    for name in unindexed:
        print(f"docs/README.md: no link to docs/{name} (one line: what a reader finds there)")
    if missing:
        print(f"{len(missing)} path(s) named in README.md or docs/*.md do not exist", file=sys.stderr)
    if unindexed:
        print(f"{len(unindexed)} page(s) of docs/ missing from docs/README.md", file=sys.stderr)
    return 1 if missing or unindexed else 0


if __name__ == "__main__":
    sys.exit(main())
