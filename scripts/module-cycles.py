#!/usr/bin/env python3
"""Finds import circles between the files of each crate of the workspace.

Every `crates/*/src/**/*.rs` file is a module; a file depends on another module of its crate when it
names it by path (`crate::a::b`, `super::b`, `self::b`, in `use` lines or inline). A circle is a
set of files that depend on each other (a strongly connected component of more than one file).
`self::` is the file's own module and `super::` its parent, whether the file is `a/b.rs` or
`a/b/mod.rs`: two sibling files naming each other through `super::` are a circle.
Inline test modules (`#[cfg(test)] mod tests { … }`, at a file's end) are left out: they are
not part of the build that ships. A `mod.rs` or `lib.rs` that only declares and re-exports its children is the parent of those
children, not a dependency of them, so `pub use child::X` in a parent does not count, and a child
naming its parent (`super::*`) does.

    scripts/module-cycles.py            # prints every circle; exit 1 if there is one
    scripts/module-cycles.py DIR        # the same for the crates of DIR/crates (the tests' trees)

scripts/test_module_cycles.py (run by CI) plants circles in a throwaway tree and checks that this
script fails on each.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_BLOCK_RE = re.compile(r"\buse\s+(crate|super|self)::\{([^;]*)\};", re.S)


def module_of(src: Path, f: Path) -> tuple:
    rel = f.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def strip_comments(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def strip_test_modules(text: str) -> str:
    """The file without its inline `#[cfg(test)] mod …` (by convention the file's end)."""
    m = re.search(r"^\s*#\[cfg\(test\)\]\s*\n\s*mod\s+\w+\s*\{", text, flags=re.M)
    return text[: m.start()] if m else text


def crate_graph(src: Path) -> dict:
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(src, f): f for f in files}
    graph = {m: set() for m in modules}

    def resolve(base: tuple, names: list):
        # The longest prefix of base + names that is a module of the crate.
        path = list(base) + names
        while path and tuple(path) not in modules:
            path.pop()
        return tuple(path)

    for mod, f in modules.items():
        text = strip_test_modules(strip_comments(f.read_text(encoding="utf-8")))
        is_parent = f.name in ("mod.rs", "lib.rs", "main.rs")
        refs = []
        for m in PATH_RE.finditer(text):
            refs.append((m.group(1), m.group(2).strip(":").split("::")))
        for m in USE_BLOCK_RE.finditer(text):
            for item in m.group(2).split(","):
                item = item.strip().split(" as ")[0]
                names = [n for n in item.split("::") if n and n not in ("{", "}", "*")]
                if names:
                    refs.append((m.group(1), names))
        for kind, names in refs:
            # `self` is the file's own module and `super` its parent, in a `mod.rs` as in any
            # other file (`module_of` already names `a/mod.rs` and `a.rs` alike); each further
            # leading `super` goes one level up.
            if kind == "crate":
                base = ()
            elif kind == "super":
                up = 1
                while names and names[0] == "super":
                    names = names[1:]
                    up += 1
                base = mod[: max(len(mod) - up, 0)]
                if not names:
                    if base != mod and base in modules:
                        graph[mod].add(base)
                    continue
            else:
                base = mod
            target = resolve(base, [n for n in names if n != "self"])
            if target == mod or target not in modules:
                continue
            # A parent re-exporting or declaring its own descendants is not a dependency on them.
            if is_parent and target[: len(mod)] == mod:
                continue
            graph[mod].add(target)
    return graph


def circles(graph: dict) -> list:
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    found = 0
    crates = sorted(p for p in (root / "crates").iterdir() if (p / "src").is_dir())
    for crate in crates:
        graph = crate_graph(crate / "src")
        edges = sum(len(v) for v in graph.values())
        cs = circles(graph)
        found += len(cs)
        status = "no circle" if not cs else f"{len(cs)} circle(s)"
        print(f"{crate.name}: {len(graph)} files, {edges} file dependencies, {status}")
        for c in cs:
            print("  circle: " + " <-> ".join("::".join(m) or "(root)" for m in c))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
