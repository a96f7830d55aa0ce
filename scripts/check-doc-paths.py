#!/usr/bin/env python3
"""Fails when README.md or docs/*.md name a `crates/…` path that does not exist or link a
relative path that does not exist, when docs/README.md (the index of docs/) does not link a page
of docs/, or when the dependency picture of docs/architecture.md ("The crates and their
dependencies") does not list every crate of crates/ with exactly the workspace crates its
Cargo.toml's `[dependencies]` name.

Every token that starts with `crates/` (also inside `../crates/…` links) is taken as a path from
the repository's root, up to the first character that cannot be part of one; trailing `.`, `:`
and a `:LINE` suffix are dropped. `*` is a glob, and a placeholder for a name (`NAME`, `<name>`,
`{name}`, `…`) stands for any name: the path exists when something matches.

    scripts/check-doc-paths.py          # lists each break with where it is; exit 1 if any
"""

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINK_RE = re.compile(r"\]\(([^)#\s:]+)(?:#[^)]*)?\)")
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


def picture_breaks() -> list[str]:
    """Where the dependency picture of docs/architecture.md and the crates' Cargo.toml differ."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The crates and their dependencies", 1)[1]
    block = section.split("```", 2)[1]
    drawn: dict[str, set[str]] = {}
    row = None
    for line in block.splitlines():
        if "──►" in line:
            left, right = line.split("──►", 1)
            row = [n.strip() for n in left.strip(" ─").split(",")]
            for name in row:
                drawn[name] = set()
        elif not line.strip() or row is None:
            continue
        else:
            right = line
        right = re.sub(r"\(and (\S+), only with its `testing` feature\)", r", \1", right)
        deps = {d.strip() for d in right.split(",") if d.strip() and d.strip() != "no workspace crate"}
        for name in row:
            drawn[name] |= deps
    breaks = []
    for toml in sorted((ROOT / "crates").glob("*/Cargo.toml")):
        package = tomllib.loads(toml.read_text(encoding="utf-8"))
        crate = package["package"]["name"]
        short = "gridprint (the binary)" if crate == "gridprint" else crate.removeprefix("gridprint-")
        deps = {
            d.removeprefix("gridprint-") for d in package.get("dependencies", {}) if d.startswith("gridprint-")
        }
        if short not in drawn:
            breaks.append(f"docs/architecture.md: the dependency picture has no row for {crate}")
        elif drawn.pop(short) != deps:
            breaks.append(f"docs/architecture.md: the picture's {short} ──► differs from its Cargo.toml: {sorted(deps)}")
    breaks.extend(f"docs/architecture.md: the picture names {n}, which crates/ does not hold" for n in drawn)
    return breaks


def main() -> int:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for doc in docs:
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in TOKEN_RE.finditer(line):
                path = clean(m.group(0))
                if path != "crates/" and not exists(path):
                    missing.append(f"{doc.relative_to(ROOT)}:{n}: {path}")
            for m in LINK_RE.finditer(line):
                if not (doc.parent / m.group(1)).exists():
                    missing.append(f"{doc.relative_to(ROOT)}:{n}: link to {m.group(1)}")
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    unindexed = [d.name for d in docs[1:] if d.name != "README.md" and d.name not in linked]
    for entry in missing:
        print(entry)
    for name in unindexed:
        print(f"docs/README.md: no link to docs/{name} (one line: what a reader finds there)")
    picture = picture_breaks()
    for entry in picture:
        print(entry)
    if missing:
        print(f"{len(missing)} path(s) named in README.md or docs/*.md do not exist", file=sys.stderr)
    if unindexed:
        print(f"{len(unindexed)} page(s) of docs/ missing from docs/README.md", file=sys.stderr)
    if picture:
        print("the dependency picture of docs/architecture.md differs from crates/*/Cargo.toml", file=sys.stderr)
    return 1 if missing or unindexed or picture else 0


if __name__ == "__main__":
    sys.exit(main())
