#!/usr/bin/env bash
# Checks deploy/*.service with `systemd-analyze verify`: fails on any error or warning (unknown keys
# are only warnings there). The units name /usr/local/bin/gridprint, which verify requires to exist:
# the check runs on copies pointing at the binary given as $1 (default target/debug/gridprint).
set -euo pipefail
here="$(dirname "$0")"
# resolve the binary before moving into deploy/ (a relative path is relative to the caller)
bin="$(realpath "${1:-$here/../target/debug/gridprint}")"
cd "$here"
[ -x "$bin" ] || { echo "deploy/verify.sh: no gridprint binary at $bin (build it first)" >&2; exit 1; }
command -v systemd-analyze >/dev/null || { echo "deploy/verify.sh: systemd-analyze missing: apt-get install systemd" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for unit in *.service; do
  sed "s|/usr/local/bin/gridprint|$bin|g" "$unit" > "$tmp/$unit"
done
out="$(systemd-analyze verify "$tmp"/*.service 2>&1)" || { echo "$out" >&2; exit 1; }
if [ -n "$out" ]; then
  echo "$out" >&2
  echo "deploy/verify.sh: systemd-analyze printed warnings (above)" >&2
  exit 1
fi
# The environment example must set only GRIDPRINT_* variables the binary knows.
for var in $(grep -oE '^#?GRIDPRINT_[A-Z_]+' gridprint.env.example | tr -d '#' | sort -u); do
  if ! "$bin" serve --help | grep -q "$var" && ! "$bin" worker --help | grep -q "$var"; then
    echo "deploy/verify.sh: $var (gridprint.env.example) is not a variable of serve or worker" >&2
    exit 1
  fi
done
echo "deploy: $(ls ./*.service | wc -l) units verified by systemd-analyze $(systemd-analyze --version | head -1 | cut -d' ' -f2); gridprint.env.example variables known"
