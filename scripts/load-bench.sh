#!/usr/bin/env bash
# Load benchmark of the data API (not part of CI): a release `gridprint serve` on a SQLite database
# holding one year × 52 zones of synthetic data computed by the real engine, driven by wrk on the same
# machine, against nginx serving the identical response bytes as a static file in the same run.
#
#   scripts/load-bench.sh [--runs 3] [--duration 15] [--connections 32] [--inputs] [--log info]
#                         [--keep-db] [--response-cache-mb N] [--postgres ADMIN_URL] [--years N]
#                         [--no-build]
#
# --years N serves N years × 52 zones ending yesterday instead of the year 2025 (ten years: a
# 7.6 GB SQLite file, written once and kept in $BENCH_DIR). It then also measures
#   A' one zone, one day of the oldest year (pages spilled to --cache-dir, read back through files)
#   D  one zone, one year of carbon inside the two oldest years, a different window on every request
#      (random start, so no response-cache hits)                                  target p99 ≤ 50 ms
#   a publication of one changed day in the oldest year under the loaded server: the time until it
#      is served and the RSS before and after                       targets ≤ 3 s, RSS + < 10 %
# and B/C use a year of the oldest two instead of 2025. Server flags for the cache go through
# GRIDPRINT_* variables (e.g. GRIDPRINT_CACHE_IN_MEMORY=true to compare with everything on the heap).
#
# --postgres postgres://postgres@127.0.0.1:5432/postgres writes the year into a fresh PostgreSQL
# database created on that server (gridprint_load_bench, dropped and recreated unless --keep-db) and
# serves from it instead of SQLite.
#
# Measures (medians of --runs):
#   A  /v1/footprints, one zone, one day (both footprint types, 192 points)  target ≥ 10,000 req/s
#   B  /v1/footprints, one zone, one year of carbon (35,040 points), uncompressed
#                                                          target ≥ 0.7 × nginx C, p99 ≤ 50 ms at 32 conns
#   C  nginx serving B's exact body as a static file
#   E  /v3/carbon-intensity/latest?zone=DE (Electricity Maps' shape, one point at or before now), beside A
#      in the same run; needs data for now, so only with --years N (data ending yesterday)
#   RSS of the server with the year loaded                                     target ≤ 300 MB
# --inputs also stores the raw inputs (generation, load, flows) as a worker-fed database would hold
# them (a larger file and cache). The database is cached in $BENCH_DIR between runs (--keep-db reuses
# it; it is rebuilt when missing). Installs Debian's wrk and nginx when missing. GRIDPRINT_BIN=path
# serves with that prebuilt binary instead (to compare builds on the same database).
set -euo pipefail

runs=3
duration=15
connections=32
inputs=""
log_level="warn"
keep_db=""
cache_mb=""
years=""
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --inputs) inputs="--inputs"; shift ;;
    --log) log_level="$2"; shift 2 ;;
    --keep-db) keep_db=1; shift ;;
    --response-cache-mb) cache_mb="$2"; shift 2 ;;
    --postgres) pg_admin="$2"; shift 2 ;;
    --years) years="$2"; shift 2 ;;
    --no-build) build=""; shift ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/lib/server.sh"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
bench_dir="${BENCH_DIR:-$target_dir/load-bench}"
mkdir -p "$bench_dir"
db="$bench_dir/year${years:+s$years}${inputs:+-inputs}.db"
synth_args=()
if [ -n "$years" ]; then
  first_day="$(date -u -d "$(date -u +%Y-%m-%d) - $years years" +%Y-%m-%d)"
  ndays=$(( ($(date -u -d "$(date -u +%Y-%m-%d)" +%s) - $(date -u -d "$first_day" +%s)) / 86400 ))
  synth_args=(--start "$first_day" --days "$ndays")
fi
email="bench@example.org"
password="bench password 123"
port_api=18731
port_nginx=18732

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "installing $2 (Debian package)"
    apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }
  fi
}
need wrk wrk
need nginx nginx

if [ -n "$build" ]; then
  echo "== building (release)"
  (cd "$root" && cargo build --release -p gridprint --bin gridprint && cargo build --release -p gridprint-api --example synth_year)
fi
bin="${GRIDPRINT_BIN:-$target_dir/release/gridprint}"
synth="$target_dir/release/examples/synth_year"

if [ -n "${pg_admin:-}" ]; then
  pg_db="gridprint_load_bench${years:+_years$years}${inputs:+_inputs}"
  db_url="${pg_admin%/*}/$pg_db"
  if [ -z "$keep_db" ] || ! psql "$pg_admin" -Atc "SELECT 1 FROM pg_database WHERE datname = '$pg_db'" | grep -q 1; then
    echo "== writing ${years:-one} year(s) × 52 zones of synthetic data to PostgreSQL database $pg_db ${inputs:+(with raw inputs)}"
    psql "$pg_admin" -qc "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" -c "CREATE DATABASE $pg_db"
    "$synth" --database "$db_url" $inputs "${synth_args[@]}"
  fi
  echo "database: PostgreSQL $pg_db, $(psql "$pg_admin" -Atc "SELECT pg_size_pretty(pg_database_size('$pg_db'))")"
else
  db_url="sqlite://$db"
  if [ -z "$keep_db" ] || [ ! -f "$db" ]; then
    echo "== writing ${years:-one} year(s) × 52 zones of synthetic data to $db ${inputs:+(with raw inputs)}"
    rm -f "$db" "$db-wal" "$db-shm"
    "$synth" --database "$db" $inputs "${synth_args[@]}"
  fi
  echo "database: $(du -ch "$db"* | tail -1 | cut -f1)"
fi
code="$(grant_code "$email" "$bin" --database "$db_url")"

server_pid=""
nginx_conf="$bench_dir/nginx.conf"
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -f "$bench_dir/nginx.pid" ]; then
    nginx -c "$nginx_conf" -s stop 2>/dev/null || true
  fi
}
trap cleanup EXIT

echo "== starting gridprint serve (log level $log_level)"
extra=()
if [ -n "$cache_mb" ]; then extra+=(--response-cache-mb "$cache_mb"); fi
GRIDPRINT_LOG="$log_level" "$bin" --database "$db_url" serve --listen "127.0.0.1:$port_api" \
  --rate-limit-per-second 1000000 --rate-limit-burst 1000000 --check-providers false "${extra[@]}" \
  2>"$bench_dir/server.log" &
server_pid=$!
started=$(date +%s.%N)
for _ in $(seq 1 9000); do
  grep -q "^listening on" "$bench_dir/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$bench_dir/server.log"; exit 1; }
  sleep 0.1
done
grep -q "^listening on" "$bench_dir/server.log" || { echo "server did not start"; cat "$bench_dir/server.log"; exit 1; }
load_secs=$(echo "$(date +%s.%N) - $started" | bc)
rss_loaded=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
base="http://127.0.0.1:$port_api"
token="$(token_for "$base" "$email" "$password" "$code")"
[ -n "$token" ] || { echo "no token"; exit 1; }

day_url="$base/v1/footprints?zone=DE&start=2025-06-01T00:00:00Z&end=2025-06-02T00:00:00Z"
year_url="$base/v1/footprints?zone=DE&footprint_type=carbon&start=2025-01-01T00:00:00Z&end=2026-01-01T00:00:00Z"
if [ -n "$years" ]; then
  iso_day() { date -u -d "$1" +%Y-%m-%dT00:00:00Z; }
  yesterday="$(date -u -d "$(date -u +%Y-%m-%d) - 1 day" +%Y-%m-%d)"
  old_day="$(date -u -d "$first_day + 200 days" +%Y-%m-%d)"
  old_year="$(date -u -d "$first_day + 1 year" +%Y)"
  day_url="$base/v1/footprints?zone=DE&start=$(iso_day "$yesterday")&end=$(iso_day "$yesterday + 1 day")"
  old_day_url="$base/v1/footprints?zone=DE&start=$(iso_day "$old_day")&end=$(iso_day "$old_day + 1 day")"
  year_url="$base/v1/footprints?zone=DE&footprint_type=carbon&start=${old_year}-01-01T00:00:00Z&end=$((old_year + 1))-01-01T00:00:00Z"
  # wrk script: a one-year window starting at a random quarter-hour of the oldest year.
  # Each wrk thread seeds its own generator (same seeds would repeat windows: cache hits).
  cat >"$bench_dir/distinct-years.lua" <<LUA
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end
function init(args)
  math.randomseed(os.time() * 100 + id)
end
local first = $(date -u -d "$first_day" +%s)
local span = 365 * 96
request = function()
  local s = first + math.random(0, span) * 900
  local e = s + 365 * 86400
  return wrk.format("GET", "/v1/footprints?zone=DE&footprint_type=carbon&start="
    .. os.date("!%Y-%m-%dT%H:%M:%SZ", s) .. "&end=" .. os.date("!%Y-%m-%dT%H:%M:%SZ", e))
end
LUA
fi
# Cold start: from launching the process to the first data answer (the cache loaded).
for _ in $(seq 1 6000); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$day_url")" = 200 ] && break
  sleep 0.1
done
first_answer_secs=$(echo "$(date +%s.%N) - $started" | bc)
rss_loaded=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
mkdir -p "$bench_dir/static"
curl -sf -H "Authorization: Bearer $token" "$day_url" -o "$bench_dir/static/day.json"
curl -sf -H "Authorization: Bearer $token" "$year_url" -o "$bench_dir/static/year.json"
points=$(grep -o '\["20' "$bench_dir/static/year.json" | wc -l)
echo "one day: $(wc -c <"$bench_dir/static/day.json") bytes; one year: $(wc -c <"$bench_dir/static/year.json") bytes, $points points"

cat >"$nginx_conf" <<EOF
worker_processes auto;
pid $bench_dir/nginx.pid;
error_log $bench_dir/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  types { application/json json; }
  client_body_temp_path $bench_dir/nginx-tmp;
  proxy_temp_path $bench_dir/nginx-tmp;
  fastcgi_temp_path $bench_dir/nginx-tmp;
  uwsgi_temp_path $bench_dir/nginx-tmp;
  scgi_temp_path $bench_dir/nginx-tmp;
  server {
    listen 127.0.0.1:$port_nginx;
    root $bench_dir/static;
  }
}
EOF
mkdir -p "$bench_dir/nginx-tmp"
nginx -c "$nginx_conf"
curl -sf "http://127.0.0.1:$port_nginx/year.json" | cmp - "$bench_dir/static/year.json"

# Runs wrk; prints "requests_per_second p99_ms".
run_wrk() {
  local url="$1" auth="$2" script="${3:-}" out
  if [ -n "$script" ]; then
    out=$(wrk -t2 -c"$connections" -d"${duration}s" --latency -s "$script" -H "Authorization: Bearer $token" "$url")
  elif [ -n "$auth" ]; then
    out=$(wrk -t2 -c"$connections" -d"${duration}s" --latency -H "Authorization: Bearer $token" "$url")
  else
    out=$(wrk -t2 -c"$connections" -d"${duration}s" --latency "$url")
  fi
  local rps p99
  rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; print v}')
  local non2xx
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $4}')
  [ -z "$non2xx" ] || echo "warning: $non2xx non-2xx answers" >&2
  echo "$rps $p99"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

declare -a a_rps a_p99 b_rps b_p99 c_rps c_p99 o_rps o_p99 d_rps d_p99 e_rps e_p99
latest_url="$base/v3/carbon-intensity/latest?zone=DE"
latest_status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$latest_url")
[ "$latest_status" = 200 ] || echo "E skipped: $latest_url answers $latest_status (no data for now; use --years N)"
echo "== wrk: $runs runs × ${duration}s, 2 threads, $connections connections"
for i in $(seq 1 "$runs"); do
  read -r r p < <(run_wrk "$day_url" auth); a_rps+=("$r"); a_p99+=("$p")
  read -r r p < <(run_wrk "$year_url" auth); b_rps+=("$r"); b_p99+=("$p")
  read -r r p < <(run_wrk "http://127.0.0.1:$port_nginx/year.json" ""); c_rps+=("$r"); c_p99+=("$p")
  echo "run $i: A ${a_rps[-1]} req/s (p99 ${a_p99[-1]} ms) | B ${b_rps[-1]} req/s (p99 ${b_p99[-1]} ms) | C nginx ${c_rps[-1]} req/s (p99 ${c_p99[-1]} ms)"
  if [ "$latest_status" = 200 ]; then
    read -r r p < <(run_wrk "$latest_url" auth); e_rps+=("$r"); e_p99+=("$p")
    echo "       E /v3 latest ${e_rps[-1]} req/s (p99 ${e_p99[-1]} ms)"
  fi
  if [ -n "$years" ]; then
    read -r r p < <(run_wrk "$old_day_url" auth); o_rps+=("$r"); o_p99+=("$p")
    read -r r p < <(run_wrk "$base/" auth "$bench_dir/distinct-years.lua"); d_rps+=("$r"); d_p99+=("$p")
    echo "       A' old day ${o_rps[-1]} req/s (p99 ${o_p99[-1]} ms) | D distinct old-year windows ${d_rps[-1]} req/s (p99 ${d_p99[-1]} ms)"
  fi
done
rss_after=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
rss_target=300; [ -z "$years" ] || rss_target=600
rss_parts=$(awk '/RssAnon|RssFile/ {printf "%s %d MB ", $1, $2 / 1024}' "/proc/$server_pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")

A=$(printf '%s\n' "${a_rps[@]}" | median); Ap=$(printf '%s\n' "${a_p99[@]}" | median)
B=$(printf '%s\n' "${b_rps[@]}" | median); Bp=$(printf '%s\n' "${b_p99[@]}" | median)
C=$(printf '%s\n' "${c_rps[@]}" | median); Cp=$(printf '%s\n' "${c_p99[@]}" | median)
ratio=$(echo "scale=2; $B / $C" | bc)
echo
echo "== results (medians of $runs runs; client and server on this machine, $(nproc) cores)"
printf '%-58s %12s %10s\n' "measurement" "req/s" "p99 ms"
printf '%-58s %12s %10s\n' "A /v1/footprints one zone, one day (target ≥ 10,000)" "$A" "$Ap"
printf '%-58s %12s %10s\n' "B /v1/footprints one zone, one year, uncompressed" "$B" "$Bp"
printf '%-58s %12s %10s\n' "C nginx, the same bytes as a static file" "$C" "$Cp"
if [ "$latest_status" = 200 ]; then
  E=$(printf '%s\n' "${e_rps[@]}" | median); Ep=$(printf '%s\n' "${e_p99[@]}" | median)
  printf '%-58s %12s %10s\n' "E /v3/carbon-intensity/latest, one zone" "$E" "$Ep"
fi
echo "B / C = $ratio (target ≥ 0.7); B p99 target ≤ 50 ms"
echo "server RSS: $((rss_loaded / 1024)) MB after loading (listening after ${load_secs%.*} s, first data answer after ${first_answer_secs%.*} s), $((rss_after / 1024)) MB after the runs, peak $((hwm / 1024)) MB (target ≤ $rss_target MB; MB = MiB)"
echo "after the runs: $rss_parts"
if [ -n "$years" ]; then
  O=$(printf '%s\n' "${o_rps[@]}" | median); Op=$(printf '%s\n' "${o_p99[@]}" | median)
  D=$(printf '%s\n' "${d_rps[@]}" | median); Dp=$(printf '%s\n' "${d_p99[@]}" | median)
  printf '%-58s %12s %10s\n' "A' one zone, one day of the oldest year" "$O" "$Op"
  printf '%-58s %12s %10s\n' "D one zone, one old year, distinct windows (p99 ≤ 50)" "$D" "$Dp"
  # A publication of one changed day (the old day, values × 1.01) under the loaded server.
  before_body=$(curl -sf -H "Authorization: Bearer $token" "$old_day_url")
  rss_pub0=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  "$synth" --database "$db_url" --republish "$old_day" >/dev/null
  t0=$(date +%s.%N); served=""
  for _ in $(seq 1 300); do
    if [ "$(curl -sf -H "Authorization: Bearer $token" "$old_day_url")" != "$before_body" ]; then served=1; break; fi
    sleep 0.05
  done
  [ -n "$served" ] || { echo "the republished day was not served within 15 s"; exit 1; }
  pub_secs=$(echo "$(date +%s.%N) - $t0" | bc)
  sleep 1
  rss_pub1=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  echo "publication of one changed day: served after ${pub_secs} s (refresh interval 2 s; target ≤ 3 s); RSS $((rss_pub0 / 1024)) → $((rss_pub1 / 1024)) MB ($(echo "scale=1; 100 * ($rss_pub1 - $rss_pub0) / $rss_pub0" | bc) %; target < 10 %)"
fi
# Only logged at --log info or lower.
grep -o 'data cache loaded.*' "$bench_dir/server.log" | sed 's/\x1b\[[0-9;]*m//g' | head -1 || true
