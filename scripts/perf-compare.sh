#!/usr/bin/env bash
# Side-by-side benchmark of two commits (issue #31; docs/performance.md). Not part of CI.
#
#   scripts/perf-compare.sh BASE [HEAD] [--runs 5] [--duration 5] [--connections 32] [--build-only]
#
# Builds BASE and HEAD (commits; HEAD defaults to HEAD) in their own detached worktrees under
# $PERF_DIR (default target/perf-compare), with one shared release target directory, and keeps each
# commit's `gridprint` and `synth_year` binaries in $PERF_DIR/bin/<sha>/ (built once, reused).
# Each side writes its own data with its own `synth_year`; the generator is the same code in every
# commit since 0aca2b4, so the data are identical. Then, alternating BASE and HEAD process by process
# (BASE, HEAD, BASE, HEAD, …) for the compute rows, and with both servers up side by side and each
# load run BASE HEAD HEAD BASE in odd runs and HEAD BASE BASE HEAD in even ones for the served rows,
# so that the machine's slow and fast phases fall on both sides and neither side always holds the
# middle places (use an even --runs):
#   publish    synth_year --inputs --days 14: compute and publish 14 days × 52 zones (728 zone-days),
#              wall seconds from its "stored" line to its last "computed" line (storing not counted)
#   first      `gridprint compute` right after it (wall seconds): the import's own compute, which
#              synth_year does not run (the gap estimators; from 9d76c52 on, it settles the days)
#   unchanged  `gridprint compute` again, as right after an import: every slot final, nothing
#              changed (wall seconds)
#   day        /v1/footprints, one zone, one day (response cache warm)           req/s, p99
#   month      /v1/footprints, one zone, one month                               req/s, p99
#   distinct   /v1/footprints, one zone, a random 15–30-day window each request (cache misses)
#   year       /v1/footprints, one zone, one year of carbon (p99 is the figure to watch)
#   best       /v1/best-window, one zone, a week, 2 h (never cached; n/a for a side without the route)
#   rss        the server's peak RSS (VmHWM) over its run, MiB
# Serving runs on a one-year database per side (2025 × 52 zones), written once and kept.
# Output: one line per measure with each side's median and spread (min–max) and HEAD/BASE of the
# medians; then, for the served rows, the median of each run's paired ratio (HEAD's two loads over
# BASE's two) and how many runs are at or above 1; the raw numbers in
# $PERF_DIR/results-<base>-<head>.tsv.
# Installs Debian's wrk when missing. Client and server share the machine: quote medians and spreads.
set -euo pipefail

runs=5
duration=5
connections=32
build_only=""
revs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "unknown argument $1" >&2; exit 2 ;;
    *) revs+=("$1"); shift ;;
  esac
done
[ "${#revs[@]}" -ge 1 ] || { echo "usage: scripts/perf-compare.sh BASE [HEAD] [--runs N] [--duration S]" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/lib/server.sh"
perf_dir="${PERF_DIR:-$root/target/perf-compare}"
mkdir -p "$perf_dir/bin" "$perf_dir/src" "$perf_dir/data"
base_sha="$(git -C "$root" rev-parse --short=7 "${revs[0]}^{commit}")"
head_sha="$(git -C "$root" rev-parse --short=7 "${revs[1]:-HEAD}^{commit}")"

if ! command -v wrk >/dev/null 2>&1; then
  echo "installing wrk (Debian package)"
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi

# Builds a commit's binaries once into $perf_dir/bin/<sha>/.
build() {
  local sha="$1" src="$perf_dir/src/$1" bin="$perf_dir/bin/$1"
  if [ -x "$bin/gridprint" ] && [ -x "$bin/synth_year" ]; then return 0; fi
  [ -d "$src" ] || git -C "$root" worktree add --detach -q "$src" "$sha"
  echo "== building $sha (release; shared target $perf_dir/target)"
  (cd "$src" && CARGO_TARGET_DIR="$perf_dir/target" cargo build --release --locked -q \
     -p gridprint --bin gridprint -p gridprint-api --example synth_year)
  mkdir -p "$bin"
  cp "$perf_dir/target/release/gridprint" "$perf_dir/target/release/examples/synth_year" "$bin/"
}
build "$base_sha"
build "$head_sha"
[ -z "$build_only" ] || exit 0

# The one-year database of a side, written once by its own synth_year.
year_db() {
  local db="$perf_dir/data/year-$1.db"
  if [ ! -f "$db" ]; then
    echo "== writing 2025 × 52 zones with $1's synth_year" >&2
    "$perf_dir/bin/$1/synth_year" --database "$db.tmp" --days 365 >&2
    mv "$db.tmp" "$db"; rm -f "$db.tmp-wal" "$db.tmp-shm"
  fi
  echo "$db"
}
year_db "$base_sha" >/dev/null
year_db "$head_sha" >/dev/null

results="$perf_dir/results-$base_sha-$head_sha.tsv"
: >"$results"
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }

# publish and unchanged, for one side.
measure_compute() {
  local sha="$1" db="$perf_dir/data/fourteen-$1.db" out t0 t1
  rm -f "$db" "$db-wal" "$db-shm"
  # Timed here, from its "stored …" line to its last "computed … zone-days" line, rather than read
  # from that line: 0aca2b4 prints it to one decimal only.
  record "$sha" publish "$("$perf_dir/bin/$sha/synth_year" --database "$db" --days 14 --inputs 2>&1 |
    python3 -c '
import sys, time
start = end = None
for line in sys.stdin:
    if line.startswith("stored"): start = time.monotonic()
    if "zone-days" in line: end = time.monotonic()
print(f"{end - start:.3f}")')"
  t0=$(date +%s.%N)
  "$perf_dir/bin/$sha/gridprint" --database "sqlite://$db" --log warn compute >/dev/null 2>&1
  t1=$(date +%s.%N)
  record "$sha" first "$(echo "$t1 - $t0" | bc)"
  "$perf_dir/bin/$sha/gridprint" --database "sqlite://$db" --log warn compute >/dev/null 2>&1
  t0=$(date +%s.%N)
  record "$sha" unchanged "$(echo "$t0 - $t1" | bc)"
  rm -f "$db" "$db-wal" "$db-shm"
}

# wrk → "req/s p99_ms".
run_wrk() {
  local url="$1" script="${2:-}" out args=(-t2 -c"$connections" -d"${duration}s" --latency -H "Authorization: Bearer $token")
  [ -z "$script" ] || args+=(-s "$script")
  out="$(wrk "${args[@]}" "$url")"
  # Error answers are no figure: a side without the route (0aca2b4 has no /v1/best-window) is
  # left out of that row rather than compared on its 404s.
  if echo "$out" | grep -q 'Non-2xx'; then
    echo "warning: $(echo "$out" | grep 'Non-2xx') for $url: not recorded" >&2
    echo
    return
  fi
  echo "$out" | awk '
    /^Requests\/sec:/ {rps=$2}
    $1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; p=v}
    END {print rps, p}'
}

cat >"$perf_dir/distinct.lua" <<'LUA'
-- A window of 15 to 30 days starting at a random quarter-hour of 2025, one zone: no cache hits.
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) math.randomseed(os.time() * 100 + id) end
local first = 1735689600 -- 2025-01-01T00:00Z
request = function()
  local s = first + math.random(0, 330 * 96) * 900
  local e = s + math.random(15 * 96, 30 * 96) * 900
  return wrk.format("GET", "/v1/footprints?zone=DE&start=" .. os.date("!%Y-%m-%dT%H:%M:%SZ", s)
    .. "&end=" .. os.date("!%Y-%m-%dT%H:%M:%SZ", e))
end
LUA

# Starts a side's server (ROLE base or head, its SHA) on its year database at PORT; sets
# server_pid[ROLE], server_base[ROLE] and server_token[ROLE]. Keyed by role, so a commit compared
# with itself (a check of the method) runs two servers.
declare -A server_pid server_token server_base
# A server still up when the script ends early (a failed start, Ctrl-C) is stopped.
trap 'for p in "${server_pid[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
start_server() {
  local role="$1" sha="$2" port="$3" db email="perf@example.org" password="perf password 123" code log
  db="$(year_db "$sha")"
  log="$perf_dir/server-$role-$sha.log"
  local gp=("$perf_dir/bin/$sha/gridprint" --database "sqlite://$db" --log warn)
  # A registration code where the build prints one (`code: …`), none before that.
  code="$(grant_code "$email" "${gp[@]}")"
  "${gp[@]}" serve --listen "127.0.0.1:$port" --rate-limit-per-second 1000000 --rate-limit-burst 1000000 \
    --check-providers false >"$log" 2>&1 &
  local pid=$! base="http://127.0.0.1:$port"
  server_pid[$role]=$pid; server_base[$role]=$base
  wait_until_serving "$base" "$pid" "$log" || { echo "server of $sha" >&2; exit 1; }
  local token
  token="$(token_for "$base" "$email" "$password" "$code")"
  [ -n "$token" ] || { echo "no token from $sha" >&2; exit 1; }
  server_token[$role]=$token
  # The first data answer waits for the cache to load.
  for _ in $(seq 1 1200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
      "$base/v1/footprints?zone=DE&start=2025-06-01T00:00Z&end=2025-06-02T00:00Z")" = 200 ] && break
    sleep 0.1
  done
}

stop_server() {
  local role="$1" sha="$2" pid="${server_pid[$1]}"
  record "$sha" rss_mib "$(awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$pid/status")"
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  unset "server_pid[$role]"
}

# One load on both servers, BASE HEAD HEAD BASE (ABBA) in odd runs, HEAD BASE BASE HEAD in even ones
# ($run): each side's two loads are recorded as its samples, and HEAD's sum over BASE's as the run's
# paired ratio (`NAME_pair`). The two sides' loads lie seconds apart, so a slow or fast phase of the
# machine (they last tens of seconds here) falls on both sides of a pair, and a phase that drifts
# during the four loads falls on both equally; swapping the order every other run keeps a cost of
# the middle (or outer) places from landing on one side (a commit against itself measured 0.95–0.99
# with HEAD always in the middle, seventh session).
paired_load() {
  local name="$1" path="$2" script="${3:-}" role sha r p a=() b=() order=(base head head base)
  [ $((run % 2)) -eq 1 ] || order=(head base base head)
  for role in "${order[@]}"; do
    if [ "$role" = base ]; then sha="$base_sha"; else sha="$head_sha"; fi
    token="${server_token[$role]}"
    read -r r p < <(run_wrk "${server_base[$role]}$path" "$script")
    record "$sha" "${name}_rps" "$r"; record "$sha" "${name}_p99" "$p"
    if [ "$role" = base ]; then a+=("$r"); else b+=("$r"); fi
  done
  record pair "${name}_pair" "$(awk -v a1="${a[0]}" -v a2="${a[1]:-}" -v b1="${b[0]}" -v b2="${b[1]:-}" \
    'BEGIN {if (a1 != "" && a2 != "" && b1 != "" && b2 != "") printf "%.4f", (b1 + b2) / (a1 + a2)}')"
}

# One serving run: both servers up side by side (an idle server costs nothing), every load paired.
measure_serving() {
  start_server base "$base_sha" 18741
  start_server head "$head_sha" 18742
  local q="/v1/footprints?zone=DE"
  paired_load day "$q&start=2025-06-01T00:00Z&end=2025-06-02T00:00Z"
  paired_load month "$q&start=2025-06-01T00:00Z&end=2025-07-01T00:00Z"
  paired_load distinct "/" "$perf_dir/distinct.lua"
  paired_load year "$q&footprint_type=carbon&start=2025-01-01T00:00Z&end=2026-01-01T00:00Z"
  paired_load best "/v1/best-window?zone=DE&duration=120&start=2025-06-01T00:00Z&end=2025-06-08T00:00Z"
  stop_server base "$base_sha"
  stop_server head "$head_sha"
}

echo "== $runs alternating runs: $base_sha (BASE) and $head_sha (HEAD); wrk -t2 -c$connections -d${duration}s"
for run in $(seq 1 "$runs"); do
  for sha in "$base_sha" "$head_sha"; do
    measure_compute "$sha"
  done
  measure_serving
  echo "run $run of $runs done"
done

echo
# Median (min–max) of the values recorded for side $1 and measure $2.
stats() {
  awk -F'\t' -v s="$1" -v m="$2" '$1 == s && $2 == m && $3 != "" {print $3}' "$results" | sort -g |
    awk '{a[NR]=$1} END {if (NR == 0) {print "n/a"; exit} med = (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); printf "%g (%g–%g)\n", med, a[1], a[NR]}'
}

echo
echo "== medians (min–max) over $runs runs ($(( runs * 2 )) loads a side for the served rows); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %26s %26s %10s\n' measure "BASE $base_sha" "HEAD $head_sha" HEAD/BASE
for m in publish first unchanged day_rps day_p99 month_rps month_p99 distinct_rps distinct_p99 year_rps year_p99 best_rps best_p99 rss_mib; do
  b="$(stats "$base_sha" "$m")"; h="$(stats "$head_sha" "$m")"
  ratio="$(awk -v b="${b%% *}" -v h="${h%% *}" 'BEGIN {if (b + 0 > 0 && h != "n/a") printf "%.2f", h / b; else print "n/a"}')"
  printf '%-14s %26s %26s %10s\n' "$m" "$b" "$h" "$ratio"
done
echo
echo "== paired req/s, HEAD/BASE within each run (BASE HEAD HEAD BASE in odd runs, HEAD BASE BASE HEAD in even ones, seconds apart): median (min–max), runs at or above 1"
for m in day month distinct year best; do
  above="$(awk -F'\t' -v m="${m}_pair" '$1 == "pair" && $2 == m && $3 != "" {n++; if ($3 >= 1) k++} END {printf "%d of %d", k, n}' "$results")"
  printf '%-14s %26s %14s\n' "$m" "$(stats pair "${m}_pair")" "$above"
done
echo "raw: $results"
