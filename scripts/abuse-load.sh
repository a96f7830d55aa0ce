#!/usr/bin/env bash
# The abuse load test of issue #28 (docs/reliability.md, "Abuse load test"). Not part of CI.
#
#   scripts/abuse-load.sh BIN [--runs 1] [--seconds 15] [--hold-seconds 30] [--days 45]
#                             [--response-memory-mb 512] [--response-cache-mb 64] [--port 18761]
#                             [--server-nofile 8192]
#                             [-- ARGS for scripts/abuse-load.py, e.g. --item1-senders 4]
#
# BIN is a release `gridprint` binary (e.g. target/release/gridprint, or one of scripts/perf-compare.sh's
# target/perf-compare/bin/<sha>/gridprint); its `synth_year` is looked for beside it, then in
# examples/ beside it ($SYNTH_YEAR overrides). The data: the last --days days before today × 52 zones,
# written by that synth_year into $ABUSE_DIR (default target/abuse-load), one file per synth_year build.
# Each run starts `BIN serve` on it with the default rate limits (20/s, burst 100 per account), grants
# two accounts and runs scripts/abuse-load.py (aiohttp, in the venv $ABUSE_DIR/venv):
#   victim    another account: one-day /v1/footprints requests, 10/s, throughout (open loop)
#   item 1    8 requests at once of /v1/factors?start=2017-01-01&end=2017-01-02&start=2016-09-0N&
#             end=2017-09-0N&format=csv (a day by the first pair, a year by the last), each repeated
#             after its answer, at most 2/s each, for --seconds
#   item 2    6 sockets ask a year of factors as CSV with Accept-Encoding: identity and never read,
#             held --hold-seconds (longer than the default --send-timeout of 20 s)
#   item 3    /v1/availability?junk=N (no window, every request distinct), 20/s for --seconds
#   item 9    anonymous /dashboard/api/day for ten years of days, newest first, from 127.0.0.2–9,
#             4 at once per address, for --seconds
#   slow      issue #49: 40 client addresses (127.0.10.x) × 200 connections sending a request head a
#             byte every 2 s, never finishing it, each reopened 1 s after the server closes it, for
#             30 s: 8,000 connections against the cap the server derives from its file limit
#             (--server-nofile 8192 → 8192 − 1024 = 7,168)
#   stalled   issue #49: 8 addresses × 250 token-service POSTs whose body stops (Content-Length cut
#             short, or chunked without an end), each reopened after its answer, for 25 s
#   item 4    end twice in both orders (12 and 24 points, different ETags, each equal to the single-end
#             answer); start=garbage before and after a valid start (200, then 422: the last one counts)
# Reported: the victim's p50/p99 per phase and overall (target p99 ≤ 250 ms throughout), the server's
# peak RSS per phase and VmHWM against the budget = RSS at rest + --response-memory-mb +
# --response-cache-mb (target ≤ budget + 20 %), each probe's statuses, item 4's checks, and from the
# server's log: accept errors (target 0), ERROR lines and refusal summaries.
# Flags the binary does not have (older builds) are left out and named.
set -euo pipefail

runs=1
seconds=15
hold=30
days=45
memory_mb=512
cache_mb=64
port=18761
nofile=8192
bin=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --hold-seconds) hold="$2"; shift 2 ;;
    --days) days="$2"; shift 2 ;;
    --response-memory-mb) memory_mb="$2"; shift 2 ;;
    --response-cache-mb) cache_mb="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --server-nofile) nofile="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    -*) echo "unknown argument $1" >&2; exit 2 ;;
    *) bin="$1"; shift ;;
  esac
done
[ -n "$bin" ] || { echo "usage: scripts/abuse-load.sh BIN [--runs N] [--seconds S]" >&2; exit 2; }
bin="$(realpath "$bin")"
[ -x "$bin" ] || { echo "$bin is not an executable" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/lib/server.sh"
dir="${ABUSE_DIR:-${CARGO_TARGET_DIR:-$root/target}/abuse-load}"
mkdir -p "$dir"
synth="${SYNTH_YEAR:-}"
for s in "$(dirname "$bin")/synth_year" "$(dirname "$bin")/examples/synth_year"; do
  [ -n "$synth" ] || { [ -x "$s" ] && synth="$s"; } || true
done
[ -n "$synth" ] || { echo "no synth_year beside $bin (build it: cargo build --release -p gridprint-api --example synth_year)" >&2; exit 2; }

venv="$dir/venv"
if ! "$venv/bin/python" -c 'import aiohttp; assert aiohttp.__version__ == "3.14.3"' 2>/dev/null; then
  echo "== installing aiohttp 3.14.3 into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q aiohttp==3.14.3
fi

# The data: the last $days days before today, written once per synth_year build.
first_day="$(date -u -d "$(date -u +%Y-%m-%d) - $days days" +%Y-%m-%d)"
last_day="$(date -u -d "$(date -u +%Y-%m-%d) - 1 day" +%Y-%m-%d)"
db="$dir/recent-$(sha256sum "$synth" | cut -c1-12)-$first_day-$days.db"
if [ ! -f "$db" ]; then
  echo "== writing $first_day … $last_day × 52 zones with $synth"
  "$synth" --database "$db.tmp" --start "$first_day" --days "$days" >/dev/null
  mv "$db.tmp" "$db"; rm -f "$db.tmp-wal" "$db.tmp-shm"
fi

gp=("$bin" --database "sqlite://$db" --log warn)
help="$("$bin" serve --help)"
flags=(--listen "127.0.0.1:$port" --check-providers false --response-cache-mb "$cache_mb")
missing=()
for f in "response-memory-mb $memory_mb" "send-timeout 20" "dashboard-history-days 31"; do
  set -- $f
  if grep -q -- "--$1 " <<<"$help"; then flags+=("--$1" "$2"); else missing+=("--$1"); fi
done
echo "== $bin"
echo "   serve ${flags[*]}"
[ "${#missing[@]}" -eq 0 ] || echo "   not in this build (left out): ${missing[*]}"

pid=""
cleanup() { if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

# Grants EMAIL, registers it with the printed code when the build prints one, prints a token.
account() {
  local email="$1"
  token_for "$base" "$email" "abuse load password" "$(grant_code "$email" "${gp[@]}")"
}

base="http://127.0.0.1:$port"
tag="$(sha256sum "$bin" | cut -c1-12)"   # names this binary's logs and run files in $dir
results=()
for run in $(seq 1 "$runs"); do
  log="$dir/$tag-server-run$run.log"
  # The server's file limit, from which it derives its connection cap (issue #49).
  ( ulimit -n "$nofile" && exec "${gp[@]}" serve "${flags[@]}" ) >"$log" 2>&1 &
  pid=$!
  wait_until_serving "$base" "$pid" "$log"
  attacker="$(account "attacker-$run@example.org")"
  victim="$(account "victim-$run@example.org")"
  [ -n "$attacker" ] && [ -n "$victim" ] || { echo "no token" >&2; exit 1; }
  # Every data answer waits for the cache to load; then rest a moment and read the RSS at rest.
  for _ in $(seq 1 1200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $victim" \
      "$base/v1/footprints?zone=DE&start=${last_day}T00:00Z&end=${last_day}T01:00Z")" = 200 ] && break
    sleep 0.1
  done
  sleep 2
  rest=$(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$pid/status")
  budget=$((rest + memory_mb + cache_mb))
  echo "== run $run of $runs: RSS at rest $rest MiB; budget $rest + $memory_mb + $cache_mb = $budget MiB, target ≤ $((budget * 12 / 10)) MiB"
  out="$dir/$tag-run$run.txt"
  "$venv/bin/python" "$root/scripts/abuse-load.py" --base "$base" --pid "$pid" \
    --attacker-token "$attacker" --victim-token "$victim" --data-first "$first_day" --data-last "$last_day" \
    --seconds "$seconds" --hold-seconds "$hold" "${extra[@]}" | tee "$out"
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  accept_errors=$(grep -c -e "accept failed" -e "Too many open files" "$log" || true)
  errors=$(grep -c " ERROR " "$log" || true)
  echo "server log $log: $accept_errors accept errors, $errors ERROR lines; refusal summaries:"
  grep "refused " "$log" | sed 's/^/   /' || true
  echo "rest=$rest budget=$budget accept_errors=$accept_errors error_lines=$errors" >>"$out"
  results+=("$out")
done

# Medians over the runs.
"$venv/bin/python" - "${results[@]}" <<'PY'
import json, statistics, sys
rs, rest = [], []
for path in sys.argv[1:]:
    lines = open(path).read().splitlines()
    rs.append(json.loads(next(l for l in lines if l.startswith("RESULT "))[7:]))
    rest.append(dict(kv.split("=") for kv in lines[-1].split()))
med = lambda xs: statistics.median([x for x in xs if x is not None]) if any(x is not None for x in xs) else None
f = lambda v: "-" if v is None else f"{v:.1f}"
print(f"\n== medians over {len(rs)} run(s)")
print(f"{'phase':<9} {'victim p50 ms':>14} {'victim p99 ms':>14} {'RSS peak MiB':>13}")
for p in rs[0]["victim"]:
    print(f"{p:<9} {f(med([r['victim'][p]['p50'] for r in rs])):>14} {f(med([r['victim'][p]['p99'] for r in rs])):>14} "
          f"{f(med([r['rss_peak'].get(p) for r in rs])):>13}")
print(f"{'all':<9} {f(med([r['victim_all']['p50'] for r in rs])):>14} {f(med([r['victim_all']['p99'] for r in rs])):>14} "
      f"{f(med([max(r['rss_peak'].values()) for r in rs])):>13}")
b = med([int(x["budget"]) for x in rest])
hwm = med([r["vmhwm"] for r in rs])
p99 = max(r["victim_all"]["p99"] for r in rs)
print(f"VmHWM {f(hwm)} MiB; budget {b} MiB, target ≤ {b * 1.2:.0f} MiB: {'PASS' if hwm <= b * 1.2 else 'FAIL'}")
print(f"victim p99 over all phases (worst run) {f(p99)} ms, target ≤ 250 ms: {'PASS' if p99 <= 250 else 'FAIL'}")
item4 = all(c["pass"] for r in rs for c in r["item4"])
print(f"item 4 (swapped parameters answer as the last occurrence says): {'PASS' if item4 else 'FAIL'}")
acc = max(int(x["accept_errors"]) for x in rest)
print(f"accept errors in the server's log (worst run) {acc}, target 0: {'PASS' if acc == 0 else 'FAIL'}")
PY
