#!/usr/bin/env bash
# Browser tests: real headless Chromium against real `gridprint serve` processes.
#
# Installs Debian's chromium if missing, installs playwright-core (npm), builds the gridprint binary,
# then (1) grants an email on a throw-away SQLite database, starts the server on a free port and runs
# token_page.mjs against it; (2) serves the demo data three times from one database — `--dashboard
# public`, `login` and `off` — and a live state (synthetic provider data up to an hour ago, then one
# offline worker cycle: estimates, forecast, the accuracy of a synthetic forecast archive; the
# synth_recent example, as tests/cats/run.sh) and runs dashboard.mjs (map, panel, CSV, docs page,
# modes, limits, plain words and the forecast's typical error on the live state).
# Screenshots go to target/browser-screenshots/ (SCREENSHOT_DIR). Exits non-zero on any failure;
# the servers are always stopped.
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
  # The binary cargo reports having built (wherever its target directory is).
  bin="$(cd "$root" && cargo build -p gridprint --bin gridprint --message-format=json-render-diagnostics \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
  [ -n "$bin" ] || bin="$target_dir/debug/gridprint"
fi
echo "gridprint binary: $bin"
# GRIDPRINT_SYNTH_RECENT: the synth_recent example already built; otherwise build it.
synth="${GRIDPRINT_SYNTH_RECENT:-}"
if [ -z "$synth" ]; then
  (cd "$root" && cargo build -q -p gridprint-api --example synth_recent)
  synth="$target_dir/debug/examples/synth_recent"
fi

export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$target_dir/browser-screenshots}"
mkdir -p "$SCREENSHOT_DIR"

tmp="$(mktemp -d)"
db="sqlite://$tmp/gridprint.db"
server_pid=""
extra_pids=()
cleanup() {
  for pid in "$server_pid" "${extra_pids[@]}"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

code="$("$bin" --database "$db" access grant "$email" | sed -n 's/^code: //p')"
"$bin" --database "$db" serve --listen 127.0.0.1:0 2>"$tmp/server.log" &
server_pid=$!

url=""
for _ in $(seq 1 300); do
  url="$(sed -n 's/^listening on \(http:\/\/[0-9.:]*\).*$/\1/p' "$tmp/server.log" 2>/dev/null | head -n 1 || true)"
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
node "$here/token_page.mjs" "$url" "$email" "$code" || status=$?

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
  exit "$status"
fi

# --- dashboard: the demo data served as `public`, `login` and `off` ---
# Starts `gridprint serve ARGS…` in the background with its log in $tmp/$1.log; sets $started_url.
start_server() {
  local name="$1"; shift
  "$bin" "$@" --listen 127.0.0.1:0 --check-providers false 2>"$tmp/$name.log" &
  local pid=$!
  extra_pids+=("$pid")
  started_url=""
  for _ in $(seq 1 600); do
    started_url="$(sed -n 's/^listening on \(http:\/\/[0-9.:]*\).*$/\1/p' "$tmp/$name.log" 2>/dev/null | head -n 1 || true)"
    [ -n "$started_url" ] && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name server exited before listening:" >&2
      cat "$tmp/$name.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "$name server did not report its address within 60 s:" >&2
  cat "$tmp/$name.log" >&2
  exit 1
}

demo_db="sqlite://$tmp/demo.db"
password="a long browser-test password"
start_server public --database "$demo_db" serve --demo
public_url="$started_url"
code="$("$bin" --database "$demo_db" access grant "$email" | sed -n 's/^code: //p')"
curl -fsS -X POST "$public_url/token-request/register" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$email\",\"password\":\"$password\",\"code\":\"$code\"}" >/dev/null
start_server login --database "$demo_db" serve --dashboard login
login_url="$started_url"
GRIDPRINT_DASHBOARD=off start_server off --database "$demo_db" serve
off_url="$started_url"

# A live state: provider data for every zone up to an hour ago and a forecast archive of the last
# 52 hours whose error is known (10 % high), then the worker's cycle offline (which measures it).
"$synth" --database "$tmp/live.db" --days 3 --archive-hours 52 >/dev/null 2>&1
"$bin" --database "sqlite://$tmp/live.db" --log warn worker --once --no-entsoe --no-elexon 2>"$tmp/live-worker.log"
live_code="$("$bin" --database "sqlite://$tmp/live.db" access grant "$email" | sed -n 's/^code: //p')"
start_server live --database "sqlite://$tmp/live.db" serve
live_url="$started_url"
curl -fsS -X POST "$live_url/token-request/register" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$email\",\"password\":\"$password\",\"code\":\"$live_code\"}" >/dev/null
echo "dashboard servers: public $public_url, login $login_url, off $off_url, live $live_url"

status=0
node "$here/dashboard.mjs" "$public_url" "$login_url" "$off_url" "$email" "$password" "$live_url" || status=$?
if [ "$status" -ne 0 ]; then
  for name in public login off live; do
    echo "--- $name server log ---" >&2
    tail -n 40 "$tmp/$name.log" >&2
  done
fi
echo "screenshots in $SCREENSHOT_DIR"
exit "$status"
