#!/usr/bin/env bash
# Soak test of the data API (not part of CI): a release `gridprint serve` on one year × 52 zones of
# synthetic data (crates/gridprint-api/examples/synth_year.rs, as scripts/load-bench.sh), driven by wrk
# at 256 connections on a mix of endpoints for a long time, sampling the server's RSS every 10 s.
#
#   scripts/soak.sh [--duration 600] [--connections 256] [--worker] [--keep-db]
#
# Mix (per request, random): footprints one zone one day (30 %), footprints one zone one week (15 %),
# mix one zone one day (15 %), generation one zone one day (15 %), mix-share one zone one day (15 %),
# status (10 %); zones drawn from 8 codes, days from the whole year. The rate limit is set out of
# reach, so any non-2xx answer is a failure. --worker runs `gridprint compute` over a month of the
# synthetic year in a loop beside the load (the cache reloads as each run publishes).
# Pass: no non-2xx, no socket errors (connect/read/write/timeout), RSS at the end < 1.10 × RSS after
# warm-up (the first 60 s, or a sixth of the run if shorter). Prints p50/p99 and the RSS series.
set -euo pipefail

duration=600
connections=256
worker=""
keep_db=""
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --worker) worker=1; shift ;;
    --keep-db) keep_db=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/lib/server.sh"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
dir="${SOAK_DIR:-$root/target/soak}"
mkdir -p "$dir"
db="$dir/year.db"
email="soak@example.org"
password="soak password 12345"
port="${SOAK_PORT:-18741}"
command -v wrk >/dev/null || { apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }; }

echo "== building (release)"
(cd "$root" && cargo build --release --locked -p gridprint --bin gridprint && cargo build --release --locked -p gridprint-api --example synth_year)
bin="$target_dir/release/gridprint"
synth="$target_dir/release/examples/synth_year"
if [ -z "$keep_db" ] || [ ! -f "$db" ]; then
  echo "== writing one year × 52 zones of synthetic data to $db"
  rm -f "$db" "$db-wal" "$db-shm"
  "$synth" --database "$db"
fi
code="$(grant_code "$email" "$bin" --database "sqlite://$db")"

server_pid=""
worker_pid=""
cleanup() {
  if [ -n "$worker_pid" ]; then kill "$worker_pid" 2>/dev/null || true; wait "$worker_pid" 2>/dev/null || true; fi
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

GRIDPRINT_LOG=warn "$bin" --database "sqlite://$db" serve --listen "127.0.0.1:$port" \
  --rate-limit-per-second 1000000 --rate-limit-burst 1000000 --check-providers false \
  2>"$dir/server.log" &
server_pid=$!
for _ in $(seq 1 1200); do
  grep -q "^listening on" "$dir/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server.log"; exit 1; }
  sleep 0.1
done
grep -q "^listening on" "$dir/server.log" || { echo "server did not start"; exit 1; }
base="http://127.0.0.1:$port"
token="$(token_for "$base" "$email" "$password" "$code")"
[ -n "$token" ] || { echo "no token"; exit 1; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$server_pid/status"; }
echo "server RSS after loading: $(( $(rss) / 1024 )) MB"

cat >"$dir/mix.lua" <<'EOF'
local zones = {"DE", "FR", "ES", "NL", "PL", "IT-NORTH", "BE", "AT"}
math.randomseed(os.time())
local function day(offset)
  local t = os.time({year = 2025, month = 1, day = 1, hour = 0}) + offset * 86400
  return os.date("!%Y-%m-%d", t)
end
request = function()
  local z = zones[math.random(#zones)]
  local d = math.random(0, 357)
  local r = math.random(100)
  local path
  if r <= 30 then
    path = "/v1/footprints?zone=" .. z .. "&start=" .. day(d) .. "&end=" .. day(d + 1)
  elseif r <= 45 then
    path = "/v1/footprints?zone=" .. z .. "&start=" .. day(d) .. "&end=" .. day(d + 7)
  elseif r <= 60 then
    path = "/v1/mix?zone=" .. z .. "&start=" .. day(d) .. "&end=" .. day(d + 1)
  elseif r <= 75 then
    path = "/v1/generation?zone=" .. z .. "&start=" .. day(d) .. "&end=" .. day(d + 1)
  elseif r <= 90 then
    path = "/v1/mix-share?zone=" .. z .. "&start=" .. day(d) .. "&end=" .. day(d + 1)
  else
    path = "/v1/status"
  end
  return wrk.format("GET", path)
end
local statuses = {}
response = function(status, headers, body)
  if status < 200 or status > 299 then
    statuses[status] = (statuses[status] or 0) + 1
  end
end
done = function(summary, latency, requests)
  io.write(string.format("requests %d, socket errors connect %d read %d write %d timeout %d, non-2xx %d\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout, summary.errors.status))
  io.write(string.format("latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
EOF

if [ -n "$worker" ]; then
  echo "== background: gridprint compute over 2025-06 in a loop"
  ( while true; do
      GRIDPRINT_LOG=warn nice "$bin" --database "sqlite://$db" compute --from 2025-06-01 --to 2025-07-01 \
        >>"$dir/worker.log" 2>&1 || echo "compute failed" >>"$dir/worker.log"
    done ) &
  worker_pid=$!
fi

warmup=$(( duration / 6 < 60 ? duration / 6 : 60 ))
echo "== wrk: ${duration}s, 2 threads, $connections connections (warm-up ${warmup}s)"
wrk -t2 -c"$connections" -d"${duration}s" --timeout 10s --latency -s "$dir/mix.lua" \
  -H "Authorization: Bearer $token" "$base" >"$dir/wrk.out" 2>&1 &
wrk_pid=$!
samples=()
start=$(date +%s)
while kill -0 "$wrk_pid" 2>/dev/null; do
  sleep 10
  kill -0 "$server_pid" 2>/dev/null || { echo "server died"; exit 1; }
  samples+=("$(( $(date +%s) - start )):$(( $(rss) / 1024 ))")
done
wait "$wrk_pid" || true
cat "$dir/wrk.out"
echo "RSS samples (s:MB): ${samples[*]}"

rss_warm=""
for s in "${samples[@]}"; do
  t=${s%%:*}; m=${s##*:}
  if [ -z "$rss_warm" ] && [ "$t" -ge "$warmup" ]; then rss_warm=$m; fi
done
rss_end=${samples[-1]##*:}
[ -n "$rss_warm" ] || rss_warm=${samples[0]##*:}
growth=$(awk -v a="$rss_warm" -v b="$rss_end" 'BEGIN {printf "%.1f", (b - a) * 100 / a}')
echo "RSS after warm-up ${rss_warm} MB, at the end ${rss_end} MB: growth ${growth} %"
if [ -n "$worker" ]; then echo "compute runs finished: $(grep -c computed "$dir/worker.log" || true); failures: $(grep -c failed "$dir/worker.log" || true)"; fi

fail=0
line=$(grep '^requests ' "$dir/wrk.out")
read -r connect read write timeout non2xx \
  <<<"$(echo "$line" | tr -d ',' | awk '{print $6, $8, $10, $12, $14}')"
[ "$connect$read$write$timeout" = "0000" ] || { echo "FAIL: socket errors: $line"; fail=1; }
[ "$non2xx" = "0" ] || { echo "FAIL: $non2xx non-2xx answers"; fail=1; }
awk -v g="$growth" 'BEGIN {exit !(g < 10)}' || { echo "FAIL: RSS grew ${growth} % after warm-up"; fail=1; }
grep -qiE "panicked" "$dir/server.log" && { echo "FAIL: server panicked"; fail=1; }
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
