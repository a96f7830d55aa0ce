#!/usr/bin/env bash
# Browser test of the token page: real headless Chromium against a real `gridprint serve`.
#
# Installs Debian's chromium if missing, installs playwright-core (npm), builds the gridprint binary,
# grants an email on a throw-away SQLite database, starts the server on a free port and runs
# token_page.mjs against it. Exits non-zero on any failure; the server is always stopped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
email="browser@example.org"

if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium (Debian package)"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi

cd "$here"
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
else
  npm install --no-audit --no-fund --loglevel=error
fi

target_dir="${CARGO_TARGET_DIR:-$root/target}"
# GRIDPRINT_BIN: a binary already built (CI passes the one `cargo test` just built, saving a rebuild
# with other feature flags); otherwise build it.
bin="${GRIDPRINT_BIN:-}"
if [ -z "$bin" ]; then
  (cd "$root" && cargo build -p gridprint)
  bin="$target_dir/debug/gridprint"
fi

tmp="$(mktemp -d)"
db="sqlite://$tmp/gridprint.db"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

"$bin" --database "$db" access grant "$email"
"$bin" --database "$db" serve --listen 127.0.0.1:0 2>"$tmp/server.log" &
server_pid=$!

url=""
for _ in $(seq 1 300); do
  url="$(sed -n 's/^listening on \(http:\/\/[0-9.:]*\).*$/\1/p' "$tmp/server.log" | head -n 1)"
  [ -n "$url" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "server exited before listening:" >&2
    cat "$tmp/server.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "server did not report its address within 30 s:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi
echo "server at $url"

status=0
node "$here/token_page.mjs" "$url" "$email" || status=$?

# Graceful shutdown on SIGTERM: the server must exit 0.
kill -TERM "$server_pid"
server_status=0
wait "$server_pid" || server_status=$?
server_pid=""
if [ "$server_status" -ne 0 ]; then
  echo "server exited with status $server_status after SIGTERM" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "--- server log ---" >&2
  cat "$tmp/server.log" >&2
fi
exit "$status"
