#!/usr/bin/env python3
"""Fails when the Rust code under crates/ breaks a house rule of docs/architecture.md ("Naming and house rules").

- A module doc (the `//!` lines a file opens with) runs to at most 20 lines: what, why, where next.
- No glob import of a module (`use crate::x::*;`, `use super::*;`) outside test code (tests/,
  benches/, examples/, a `#[cfg(test)]` module and the file of one); an enum's variants may be glob-imported
  (`use ProductionType::*;`: the last segment starts with a capital letter).
- At most 12 `macro_rules!` in the workspace, none over 60 lines.

    scripts/house-rules.py     # lists each break with file:line; exit 1 if any
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_DOC_LINES = 20
MAX_MACROS = 12
MAX_MACRO_LINES = 60

GLOB_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([\w:]+)::\*\s*;")
MACRO_RE = re.compile(r"^\s*(?:#\[macro_export\]\s*)?macro_rules!\s*(\w+)")


def module_doc_lines(lines: list[str]) -> int:
    """The `//!` lines the file opens with (blank lines between them do not end the block)."""
    n = 0
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("//!"):
            n += 1
        elif stripped:
            break
    return n


def test_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines inside `#[cfg(test)]` modules."""
    inside: set[int] = set()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "#[cfg(test)]" and i + 1 < len(lines) and re.match(
            r"\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", lines[i + 1]
        ):
            depth = 0
            j = i + 1
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                inside.add(j)
                if depth <= 0:
                    break
                j += 1
            i = j
        i += 1
    return inside


def test_files(paths: list[Path]) -> set[Path]:
    """Files a `#[cfg(test)] mod name;` declares (`name.rs` beside the declaring file, or in its
    folder when that file is `lib.rs`, `main.rs` or `mod.rs`)."""
    found: set[Path] = set()
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines[:-1]):
            m = re.match(r"\s*mod\s+(\w+)\s*;", lines[i + 1])
            if line.strip() == "#[cfg(test)]" and m:
                folder = path.parent if path.name in ("lib.rs", "main.rs", "mod.rs") else path.with_suffix("")
                found.add(folder / f"{m.group(1)}.rs")
                found.add(folder / m.group(1) / "mod.rs")
    return found


def macro_length(lines: list[str], start: int) -> int:
    """Lines from `macro_rules!` to the brace that closes it."""
    depth = 0
    opened = False
    for j in range(start, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        opened = opened or "{" in lines[j]
        if opened and depth <= 0:
            return j - start + 1
    return len(lines) - start


def main() -> int:
    breaks: list[str] = []
    macros: list[str] = []
    paths = [p for p in sorted((ROOT / "crates").rglob("*.rs")) if "target" not in p.parts]
    declared_tests = test_files(paths)
    for path in paths:
        rel = path.relative_to(ROOT)
        lines = path.read_text(encoding="utf-8").splitlines()
        doc = module_doc_lines(lines)
        if doc > MAX_DOC_LINES:
            breaks.append(f"{rel}:1: module doc of {doc} lines (at most {MAX_DOC_LINES})")
        is_test_file = path in declared_tests or any(
            part in ("tests", "benches", "examples") for part in rel.parts
        )
        in_test = test_lines(lines)
        for i, line in enumerate(lines):
            m = GLOB_RE.match(line)
            if m and not is_test_file and i not in in_test:
                last = m.group(1).split("::")[-1]
                if not last[:1].isupper():
                    breaks.append(f"{rel}:{i + 1}: glob import of a module: {line.strip()}")
            m = MACRO_RE.match(line)
            if m:
                length = macro_length(lines, i)
                macros.append(f"{rel}:{i + 1}: macro_rules! {m.group(1)} ({length} lines)")
                if length > MAX_MACRO_LINES:
                    breaks.append(
                        f"{rel}:{i + 1}: macro_rules! {m.group(1)} of {length} lines "
                        f"(at most {MAX_MACRO_LINES})"
                    )
    if len(macros) > MAX_MACROS:
        breaks.append(f"{len(macros)} macro_rules! in the workspace (at most {MAX_MACROS}):")
        breaks.extend("  " + m for m in macros)
    for b in breaks:
        print(b)
    if breaks:
        print(f"house-rules: {len(breaks)} break(s)", file=sys.stderr)
        return 1
    print(f"house-rules: ok ({len(macros)} macro_rules!, module docs <= {MAX_DOC_LINES} lines, "
          "no glob imports of modules outside tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
