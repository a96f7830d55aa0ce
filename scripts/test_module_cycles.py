#!/usr/bin/env python3
"""Tests of scripts/module-cycles.py on small crates planted in a throwaway tree: it must fail on
a circle between two sibling files (`super::` in a file that is not `mod.rs`/`lib.rs`), between
files at different depths, and pass on a child naming its parent.

    python3 scripts/test_module_cycles.py     # run by CI
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "module-cycles.py"


def check(files: dict) -> subprocess.CompletedProcess:
    """module-cycles.py run on one crate `demo` made of `files` (path under src/ → text)."""
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in files.items():
            f = Path(tmp) / "crates" / "demo" / "src" / path
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(text, encoding="utf-8")
        return subprocess.run(
            [sys.executable, str(SCRIPT), tmp], capture_output=True, text=True, check=False
        )


class ModuleCycles(unittest.TestCase):
    def test_sibling_files_naming_each_other_through_super_are_a_circle(self):
        run = check(
            {
                "lib.rs": "pub mod em;\n",
                "em/mod.rs": "pub mod carbon;\npub mod power;\n",
                "em/carbon.rs": "pub fn a() { super::power::b() }\n",
                "em/power.rs": "use super::carbon::{a, Ask};\npub fn b() {}\n",
            }
        )
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("em::carbon <-> em::power", run.stdout)

    def test_super_super_and_crate_paths_reach_the_right_files(self):
        run = check(
            {
                "lib.rs": "pub mod a;\npub mod b;\n",
                "a/mod.rs": "pub mod deep;\n",
                "a/deep.rs": "pub fn x() { super::super::b::y() }\n",
                "b.rs": "pub fn y() { crate::a::deep::x() }\n",
            }
        )
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("a::deep <-> b", run.stdout)

    def test_children_naming_their_parent_or_a_sibling_one_way_pass(self):
        run = check(
            {
                "lib.rs": "pub mod em;\npub use em::carbon::a;\n",
                "em/mod.rs": "pub mod carbon;\npub mod power;\npub use carbon::a;\npub struct K;\n",
                "em/carbon.rs": "use super::K;\npub fn a() { super::power::b() }\n",
                "em/power.rs": "use self::inner::c;\npub fn b() {}\nmod inner { pub fn c() {} }\n",
            }
        )
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("no circle", run.stdout)


if __name__ == "__main__":
    unittest.main()
