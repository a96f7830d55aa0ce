#!/usr/bin/env python3
"""Runs every shell command of README.md's "A first query" section, then every one of
docs/usage.md's "First steps" section (its "Serving" and "Access" parts included), as written, in
order, each page on a fresh HOME with the repository as the working directory, and fails on the
first one that does not succeed: a newcomer follows them literally.

What it changes, and only that:
- the port: 127.0.0.1:8000 / 0.0.0.0:8000 → a free port of 127.0.0.1, 127.0.0.1:9100 → another;
- the two placeholders: the registration code (`3F9A-01BC-…`) becomes the code the last
  `access grant` printed, and `TOKEN=3f9c…` is replaced by the token the last `get_token` answered
  (before the Access part gets one, the harness registers an account of its own for the Serving
  part's `$TOKEN`);
- `gridprint` is the binary under test (GRIDPRINT_BIN, default target/debug/gridprint), first on
  PATH, with GRIDPRINT_LISTEN set to the free port; a `gridprint serve` runs in the background (the previous one is stopped first) and the next
  command waits until it answers.
curl fails on an HTTP error (`--fail-with-body` in the fresh HOME's .curlrc), so a 401 or 422 is
a failure, not an answer.

    python3 tests/readme/run.py
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CODE_PLACEHOLDER = "3F9A-01BC-…"
TOKEN_PLACEHOLDER = re.compile(r"^TOKEN=\S+$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The pages and sections run, in order: (page, `## ` heading).
SECTIONS = [("README.md", "A first query"), ("docs/usage.md", "First steps")]


def section_blocks(page: str, title: str) -> list[tuple[str, list[str]]]:
    """The ```sh blocks of a page's `## title` section, each with its subsection, as logical command lines."""
    section = page.split(f"\n## {title}\n", 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    blocks = []
    heading = title
    for part in re.split(r"(\n### [^\n]*\n)", section):
        if part.startswith("\n### "):
            heading = part.strip()[4:]
            continue
        for body in re.findall(r"```sh\n(.*?)```", part, flags=re.S):
            commands, pending = [], ""
            for line in body.splitlines():
                if pending:
                    line = pending + "\n" + line
                    pending = ""
                if line.rstrip().endswith("\\"):
                    pending = line
                    continue
                stripped = line.strip()
                if stripped and not stripped.startswith("#"):
                    commands.append(line)
            blocks.append((heading, commands))
    return blocks


class Harness:
    def __init__(self, binary: Path, work: Path):
        self.work = work
        self.home = work / "home"
        self.home.mkdir()
        (self.home / ".curlrc").write_text("--fail-with-body\n--max-time 120\n")
        bindir = work / "bin"
        bindir.mkdir()
        (bindir / "gridprint").symlink_to(binary)
        self.port, self.metrics = free_port(), free_port()
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith("GRIDPRINT_")
        }
        # `serve` without `--listen` listens here (README's default port, 8000, rewritten).
        self.env.update(
            HOME=str(self.home),
            PATH=f"{bindir}:{os.environ['PATH']}",
            GRIDPRINT_LISTEN=f"127.0.0.1:{self.port}",
        )
        self.env.pop("XDG_DATA_HOME", None)
        self.server = None
        self.code = None
        self.token = None
        self.ran = 0

    def rewrite(self, command: str) -> str:
        command = command.replace("127.0.0.1:8000", f"127.0.0.1:{self.port}")
        command = command.replace("0.0.0.0:8000", f"127.0.0.1:{self.port}")
        command = command.replace("127.0.0.1:9100", f"127.0.0.1:{self.metrics}")
        if CODE_PLACEHOLDER in command:
            assert self.code, f"no registration code printed before: {command}"
            command = command.replace(CODE_PLACEHOLDER, self.code)
        return command

    def stop_server(self):
        if self.server is not None:
            self.server.terminate()
            try:
                self.server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.server.kill()
            self.server = None

    def start_server(self, command: str):
        self.stop_server()
        log = open(self.work / f"server-{self.ran}.log", "w")
        self.server = subprocess.Popen(
            ["bash", "-c", command], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.time() + 600
        while time.time() < deadline:
            if self.server.poll() is not None:
                raise SystemExit(f"FAIL: `{command}` exited {self.server.returncode}:\n{self.log_tail()}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/status", timeout=5).read()
                return
            except OSError:
                time.sleep(0.5)
        raise SystemExit(f"FAIL: `{command}` did not answer within 600 s:\n{self.log_tail()}")

    def log_tail(self) -> str:
        logs = sorted(self.work.glob("server-*.log"), key=os.path.getmtime)
        return logs[-1].read_text()[-3000:] if logs else ""

    def own_token(self):
        """A token of an account of the harness's own, for `$TOKEN` before the Access part."""
        out = self.run_one("gridprint access grant readme-harness@example.org", quiet=True)
        code = re.search(r"^code: (\S+)$", out, flags=re.M).group(1)
        base = f"http://127.0.0.1:{self.port}/token-request"
        cred = {"email": "readme-harness@example.org", "password": "readme harness password"}
        for path, body in (("register", dict(cred, code=code)), ("get_token", cred)):
            req = urllib.request.Request(
                f"{base}/{path}", data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )
            answer = json.loads(urllib.request.urlopen(req, timeout=60).read())
        self.token = answer["access_token"]

    def run_one(self, command: str, quiet: bool = False) -> str:
        env = dict(self.env)
        if self.token:
            env["TOKEN"] = self.token
        r = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
        )
        out = r.stdout + r.stderr
        if r.returncode != 0:
            raise SystemExit(f"FAIL: `{command}` exited {r.returncode}:\n{out[-3000:]}")
        if not quiet:
            self.ran += 1
            print(f"ok: {command.splitlines()[0][:110]}")
        m = re.search(r"^code: (\S+)$", r.stdout, flags=re.M)
        if m:
            self.code = m.group(1)
        m = re.search(r'"access_token":\s*"([^"]+)"', r.stdout)
        if m:
            self.token = m.group(1)
        return out

    def run(self, command: str):
        command = self.rewrite(command)
        if TOKEN_PLACEHOLDER.match(command.strip()):
            assert self.token, "TOKEN= before any get_token answer"
            print("ok: TOKEN= (the token get_token answered)")
            return
        if command.lstrip().startswith("gridprint serve"):
            self.start_server(command)
            self.ran += 1
            print(f"ok: {command.strip()[:110]} (answering)")
            return
        if "$TOKEN" in command and not self.token:
            self.own_token()
        self.run_one(command)


def main() -> int:
    binary = Path(os.environ.get("GRIDPRINT_BIN", ROOT / "target/debug/gridprint")).resolve()
    if not binary.is_file():
        print(f"no gridprint binary at {binary} (cargo build, or set GRIDPRINT_BIN)", file=sys.stderr)
        return 1
    ran = 0
    for name, title in SECTIONS:
        page = (ROOT / name).read_text()
        if f"\n## {title}\n" not in page:
            print(f"{name} has no \"{title}\" section", file=sys.stderr)
            return 1
        blocks = section_blocks(page, title)
        if not any(cmds for _, cmds in blocks):
            print(f"{name}'s \"{title}\" section has no sh block", file=sys.stderr)
            return 1
        work = Path(tempfile.mkdtemp(prefix="gridprint-readme-"))
        h = Harness(binary, work)
        try:
            print(f"=== {name}, \"{title}\"")
            for heading, commands in blocks:
                print(f"== {heading}")
                for c in commands:
                    h.run(c)
        finally:
            h.stop_server()
            shutil.rmtree(work, ignore_errors=True)
        ran += h.ran
    print(f"{ran} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
