#!/usr/bin/env bash
# CATS end to end (issues #12, #29): the real Climate-Aware Task Scheduler from PyPI, pinned, against a
# gridprint server and worker in a realistic state, at every minute of the hour where CATS' window
# start changes. The test never waits for or chooses a minute: Debian's `faketime` sets the clock of
# the worker, the server and CATS alike to each minute in turn (the hour is fixed, $HOUR).
#
# 1. A throwaway venv gets climate-aware-task-scheduler==$CATS_VERSION and sitecustomize.py (beside
#    this script), which points CATS' hard-coded WattnetEuProvider.BASE_URL at the server and records
#    what CATS fetches; CATS' own files are not touched.
# 2. One database: synthetic provider data for every zone ending an hour before $HOUR (the
#    synth_recent example, 9 days) and an access grant.
# 3. The worker's normal cycles through the hour, on that database (providers disabled: estimates for
#    the lag, forecast 96 h ahead, computation), each after DE's provider data (generation, load, the
#    flows of its borders) reached into the last hour, up to the quarter that ended before the cycle:
#    a few seconds after the boundary for minutes 0, 15, 30, 45 and the minute after them (the cycle
#    that just sealed the quarter), a minute before otherwise (:13 for :14). For each minute M the
#    server starts at M, then `cats --api wattnet.eu --location DE --duration D --format json` runs
#    for D = 60 and 2820 (CATS' largest), each with its own TMPDIR (CATS caches answers by URL). Every
#    run must exit 0 and check.py verifies its answer (one first series to the forecast's end, CATS'
#    choice the minimum of its own measure recomputed from /v1/footprints).
# 4. The demo as a user runs it (issue #30): for each of a few fixed minutes of the hour ($DEMO_MINUTES),
#    `serve --demo` starts at that minute on a fresh database (the bundled documents replayed up to an
#    hour before it, then the worker's estimates and forecast), an account is granted and registered,
#    and `cats --duration 60` runs 20 s later; it must exit 0 and pass check.py as above.
#
# Usage: bash tests/cats/run.sh   (GRIDPRINT_BIN / GRIDPRINT_SYNTH_RECENT: prebuilt binaries;
#        CATS_MINUTES="0 15", CATS_DEMO_MINUTES="16": subsets of the minutes, for a quick look)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
CATS_VERSION=1.2.1
EMAIL=cats@example.org
PASSWORD='cats-compat-test-password'
HOUR="2026-11-26 14:00:00"
MINUTES="${CATS_MINUTES:-0 1 14 15 16 29 30 31 44 45 46}"
DURATIONS="60 2820"
DEMO_MINUTES="${CATS_DEMO_MINUTES:-0 16 44}"

command -v faketime >/dev/null || { echo "cats: faketime is missing (apt-get install faketime)" >&2; exit 1; }
if [ -z "${GRIDPRINT_BIN:-}" ]; then
  cargo build --locked -q -p gridprint --bin gridprint
  GRIDPRINT_BIN="$root/target/debug/gridprint"
fi
if [ -z "${GRIDPRINT_SYNTH_RECENT:-}" ]; then
  cargo build --locked -q -p gridprint-api --example synth_recent
  GRIDPRINT_SYNTH_RECENT="$root/target/debug/examples/synth_recent"
fi

work="$(mktemp -d /tmp/gridprint-cats.XXXXXX)"
server_pid=""
# Every process of this test's database directory is stopped by its arguments (the job's pid is
# not always the server's).
# The next step writes the same SQLite file, so the server must be gone (its last connection's
# checkpoint done), not only signalled.
stop_server() {
  pkill -TERM -f -- "sqlite://$work/" 2>/dev/null || true
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=""
  local i
  for i in $(seq 1 300); do
    pgrep -f -- "sqlite://$work/" >/dev/null || return 0
    sleep 0.1
  done
  echo "cats: a server of this test did not stop within 30 s" >&2
  return 1
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT

hour_s="$(date -u -d "$HOUR" +%s)"
# libfaketime, preloaded directly: the `faketime` wrapper runs the command as its child and keeps a
# named semaphore in /dev/shm that it removes only when it exits normally; the wrapper of a stopped
# server leaves it behind, and a later wrapper that gets the same process id fails ("sem_open: File
# exists"), as one CI run did.
faketime_lib="$(compgen -G '/usr/lib/*/faketime/libfaketime.so.1' | head -n 1 || true)"
[ -n "$faketime_lib" ] || { echo "cats: libfaketime.so.1 is missing (apt-get install faketime)" >&2; exit 1; }
# `at SECONDS CMD...`: runs CMD with its clock starting at $HOUR + SECONDS (and running on from there).
# Only the wall clock is faked: timers (tokio, Python's timeouts) keep the real monotonic clock.
at() {
  local t="$1"; shift
  LD_PRELOAD="$faketime_lib" FAKETIME_DONT_FAKE_MONOTONIC=1 \
    FAKETIME="@$(date -u -d "@$((hour_s + t))" '+%Y-%m-%d %H:%M:%S')" "$@"
}
stamp() { date -u -d "@$((hour_s + $1))" +%Y-%m-%dT%H:%M:%SZ; }
gp() { local t="$1" db="$2"; shift 2; at "$t" "$GRIDPRINT_BIN" --database "sqlite://$db" --log warn "$@"; }

echo "cats: venv with climate-aware-task-scheduler==$CATS_VERSION"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "climate-aware-task-scheduler==$CATS_VERSION"
site="$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp tests/cats/sitecustomize.py "$site/"

echo "cats: one database (${SECONDS}s): synthetic provider data for every zone up to $(stamp -3600)"
base="$work/base.db"
at -1800 "$GRIDPRINT_SYNTH_RECENT" --database "$base" --days 9 --until "$(stamp -3600)"
# The registration code `access grant` prints (registration is bound to the grant).
code="$(gp -1800 "$base" access grant "$EMAIL" | sed -n 's/^code: //p')"
[ -n "$code" ] || { echo "cats: access grant printed no registration code" >&2; exit 1; }

passed=0
failed=0
failures=""

# `start_server T DB LOG ARGS…`: `serve` on DB with its clock at $HOUR + T, in the background; sets
# $url once it listens (serve --demo imports, replays and runs a worker cycle first).
start_server() {
  local t="$1" sdb="$2" log="$3"; shift 3
  gp "$t" "$sdb" serve --listen 127.0.0.1:0 --check-providers false "$@" >"$log" 2>&1 &
  server_pid=$!
  url=""
  for _ in $(seq 1 1200); do
    url="$(sed -n 's/^listening on \(http:\/\/[0-9.:]*\).*$/\1/p' "$log" 2>/dev/null | head -n 1 || true)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$log"; echo "cats: server exited" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$log"; echo "cats: server did not start" >&2; exit 1; }
}

# `register CODE`: registers $EMAIL with $PASSWORD at the running server ($url).
register() {
  "$work/venv/bin/python" - "$url" "$EMAIL" "$PASSWORD" "$1" <<'PY'
import json, sys, urllib.request
url, email, password, code = sys.argv[1:]
req = urllib.request.Request(f"{url}/token-request/register",
    data=json.dumps({"email": email, "password": password, "code": code}).encode(),
    headers={"Content-Type": "application/json"})
urllib.request.urlopen(req, timeout=30).read()
PY
}

# `run_cats MINUTE DURATION DIR LABEL`: CATS for DE at $HOUR + MINUTE:20 (MINUTE may be `demo:M`)
# against $url, then check.py; counts the outcome.
run_cats() {
  local minute="${1#demo:}" duration="$2" dir="$3" label="$4" rc min_hours=0 tag=""
  local out="$dir/cats-$duration" mt=$(( ${1#demo:} * 60 + 20 ))
  [ "$minute" != "$1" ] && tag=demo
  mkdir -p "$out/tmp"
  set +e
  TMPDIR="$out/tmp" CATS_WATTNET_EMAIL="$EMAIL" CATS_WATTNET_PASSWORD="$PASSWORD" \
  GRIDPRINT_CATS_BASE_URL="$url" GRIDPRINT_CATS_TRACE="$out/trace.jsonl" \
    at "$mt" "$work/venv/bin/cats" --api wattnet.eu --location DE --duration "$duration" \
    --format json >"$out/out.json" 2>"$out/err.txt"
  rc=$?
  set -e
  [ "$duration" -eq 2820 ] && min_hours=94
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: $label: cats exited $rc: $(cat "$out/err.txt" "$out/out.json" | grep -v "^WARNING" | grep . | tail -n 1)"
    failed=$((failed + 1)); failures="$failures $tag:$(printf %02d "$minute")/$duration"
  elif "$work/venv/bin/python" tests/cats/check.py --url "$url" --email "$EMAIL" \
      --password "$PASSWORD" --cats-output "$out/out.json" --trace "$out/trace.jsonl" \
      --duration "$duration" --min-hours "$min_hours" >"$out/check.txt" 2>&1; then
    echo "ok: $label (${SECONDS}s): $(cat "$out/check.txt")"
    passed=$((passed + 1))
  else
    echo "FAIL: $label:"; cat "$out/check.txt"
    failed=$((failed + 1)); failures="$failures $tag:$(printf %02d "$minute")/$duration"
  fi
}

db="$base"
last_cycle=""
for minute in $MINUTES; do
  t=$((minute * 60))
  run="$work/m$minute"
  mkdir -p "$run"
  # The worker's last cycle: a few seconds after the quarter's boundary for minutes 0, 15, 30, 45
  # and the minute after them, a minute before otherwise.
  case $((minute % 15)) in
    0) worker_t=$((t + 2)) ;;
    1) worker_t=$((t - 60 + 2)) ;;
    *) worker_t=$((t - 60)) ;;
  esac
  # What the providers had delivered by the worker's cycle: DE up to the quarter that had ended.
  de_until=$(( (worker_t + 3600) / 900 * 900 - 3600 ))
  if [ "$worker_t" != "$last_cycle" ]; then
    at "$worker_t" "$GRIDPRINT_SYNTH_RECENT" --database "$db" --zone DE --from "$(stamp -3600)" \
      --until "$(stamp "$de_until")" >"$run/synth.log" 2>&1 \
      || { cat "$run/synth.log"; echo "cats: adding DE's provider data failed" >&2; exit 1; }
    gp "$worker_t" "$db" worker --once --no-entsoe --no-elexon --no-epias >"$run/worker.log" 2>&1 \
      || { cat "$run/worker.log"; echo "cats: worker cycle failed" >&2; exit 1; }
    last_cycle="$worker_t"
  fi
  echo "cats: :$(printf %02d "$minute"): worker cycle done (${SECONDS}s)"

  start_server $((t + 5)) "$db" "$run/server.log"
  echo "cats: :$(printf %02d "$minute"): server up (${SECONDS}s)"
  # One database through the hour: the account registers once, at the first minute.
  if [ -z "${registered:-}" ]; then
    register "$code"
    registered=1
  fi

  for duration in $DURATIONS; do
    run_cats "$minute" "$duration" "$run" \
      "$(stamp $((t + 20))) (worker cycle at $(stamp "$worker_t"), DE provider data to $(stamp "$de_until")) --duration $duration"
  done
  stop_server
done

# 4. The demo, at a few fixed minutes: `serve --demo` on a fresh database, CATS 20 s later.
for minute in $DEMO_MINUTES; do
  t=$((minute * 60))
  run="$work/demo-m$minute"
  mkdir -p "$run"
  demo_db="$run/demo.db"
  start_server "$t" "$demo_db" "$run/server.log" --demo
  # The replay (serve's start-up line) and its provider data's end, for the label.
  until_="$(sed -n 's/^demo replay (not live data): provider data from .* to \([^ ]*\) .*$/\1/p' "$run/server.log" | head -n 1)"
  [ -n "$until_" ] || { cat "$run/server.log"; echo "cats: serve --demo printed no replay line" >&2; exit 1; }
  echo "cats: demo :$(printf %02d "$minute"): server up, replayed provider data to $until_ (${SECONDS}s)"
  demo_code="$(gp "$t" "$demo_db" access grant "$EMAIL" | sed -n 's/^code: //p')"
  [ -n "$demo_code" ] || { echo "cats: access grant printed no registration code" >&2; exit 1; }
  register "$demo_code"
  run_cats "demo:$minute" 60 "$run" "serve --demo started $(stamp "$t"), cats at $(stamp $((t + 20))) (demo provider data to $until_) --duration 60"
  stop_server
done
echo "cats (climate-aware-task-scheduler $CATS_VERSION): $passed passed, $failed failed${failures:+ (minute/duration:$failures)}"
[ "$failed" -eq 0 ]
