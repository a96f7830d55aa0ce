#!/usr/bin/env bash
# Differential test: gridprint against the reference server's own published code.
#
#   bash tests/differential/run.sh            (from the repository root; CI runs exactly this)
#
# Creates a throwaway Python 3.11 venv (target/differential-venv, reused while requirements.txt is
# unchanged), installs the pinned reference packages (wattnet-api 1.0.0, wattnet-storage 1.1.0 and
# their dependencies, all pinned in requirements.txt) from PyPI, then runs runner.py: it starts
# `gridprint serve --demo` (GRIDPRINT_BIN, default target/debug/gridprint) on a temporary SQLite
# database and the reference app on an in-memory ClickHouse stand-in fed with gridprint's own answers,
# sends the request matrix (matrix.py) to both and reports every difference not documented in
# allowlist.toml / docs/compatibility.md. The full report goes to tests/differential/last-report.txt.
# Exits non-zero on any undocumented difference, and when the install fails (it never skips).
#
# Environment: GRIDPRINT_BIN (binary to test), DIFFERENTIAL_VENV (venv path), PYTHON (default
# python3.11), DIFFERENTIAL_KEEP=1 (keep the temporary directory with both servers' logs),
# DIFFERENTIAL_REPORT_ONLY=1 (transition only: exit 0 despite differences; install or harness
# failures still fail).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
venv="${DIFFERENTIAL_VENV:-$target_dir/differential-venv}"
python="${PYTHON:-python3.11}"
bin="${GRIDPRINT_BIN:-$target_dir/debug/gridprint}"

if ! command -v "$python" >/dev/null 2>&1; then
  echo "differential: $python not found (the reference packages need Python >= 3.10; runner.py uses 3.11's tomllib)" >&2
  exit 1
fi
if [ ! -x "$bin" ]; then
  echo "differential: gridprint binary $bin not found (build it, or set GRIDPRINT_BIN)" >&2
  exit 1
fi

stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "== differential: installing the pinned reference packages into $venv"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi
"$venv/bin/python" -c 'import importlib.metadata as m; print("== differential: reference", *(f"{p} {m.version(p)}" for p in ("wattnet-api", "wattnet-storage", "fastapi", "pydantic")))'

args=(--gridprint-bin "$bin")
[ -n "${DIFFERENTIAL_KEEP:-}" ] && args+=(--keep)
exec "$venv/bin/python" "$here/runner.py" "${args[@]}"
