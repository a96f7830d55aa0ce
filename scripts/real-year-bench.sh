#!/usr/bin/env bash
# The real year 2022 end to end (issue #47; docs/performance.md, "A real year"): unpacks the
# recordings of ../shared/data/recordings-2022/ (24 monthly File Library extracts, 19 zones with
# generation, 22 with flows) into WORK once, then for each backend imports and computes the whole
# year into a fresh database with `gridprint import` and prints its wall time, peak resident memory
# (`/usr/bin/time`) and the database size; with --holes it then serves the SQLite database and
# counts the zone-slots with generation data but no footprint (scripts/real-year-holes.py).
# --two-years imports two years in one `gridprint import` instead: the 2022 files and a copy of
# them stamped one year earlier (every DateTime's 2022 made 2021: the same values again as 2021,
# not real 2021 data), so that the peak memory of two years can be set beside one year's.
# Benchmarks may read ../shared; the tests use data/fixtures/recordings-2022-*. Not part of CI.
#
#   scripts/real-year-bench.sh [--holes] [--two-years] [--runs N] [--postgres URL] [BIN]
#   (WORK=/tmp/gridprint-real-year by default; URL: a server where this script may create and
#   drop the database gridprint_real_year, e.g. postgres://postgres@127.0.0.1:5432/postgres)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
holes=false runs=1 pg="" two_years=false
while [ $# -gt 0 ]; do
  case "$1" in
    --holes) holes=true; shift ;;
    --two-years) two_years=true; shift ;;
    --runs) runs="$2"; shift 2 ;;
    --postgres) pg="$2"; shift 2 ;;
    *) break ;;
  esac
done
bin="${1:-$root/target/release/gridprint}"
work="${WORK:-/tmp/gridprint-real-year}"
data="${GRIDPRINT_RECORDINGS:-$root/../shared/data/recordings-2022}"
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release first"; exit 1; }
[ -d "$data" ] || { echo "no recordings at $data (set GRIDPRINT_RECORDINGS)"; exit 1; }
mkdir -p "$work/csv"
for f in "$data"/*.csv.gz; do
  out="$work/csv/$(basename "$f" .gz)"
  [ -s "$out" ] || zcat "$f" >"$out"
done
inputs=("$work/csv")
if $two_years; then
  mkdir -p "$work/csv-2021"
  for f in "$work"/csv/2022_*.csv; do
    out="$work/csv-2021/2021_$(basename "$f" | cut -d_ -f2-)"
    [ -s "$out" ] || sed 's/^2022-/2021-/' "$f" >"$out"
  done
  inputs=("$work/csv-2021" "$work/csv")
fi
echo "recordings: $(find "${inputs[@]}" -name '*.csv' | wc -l) files, $(du -shc "${inputs[@]}" | tail -1 | cut -f1) unpacked; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
export GRIDPRINT_LOG=warn

# Imports and computes the year into database URL; prints "backend run: seconds, peak MB, size".
one_run() {
  local backend="$1" run="$2" url="$3" size
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" --database "$url" import "${inputs[@]}" \
    >"$work/import.log" 2>&1 || { cat "$work/import.log" >&2; return 1; }
  read -r secs kib <"$work/time"
  case "$backend" in
    sqlite) size=$(du -cb "${url#sqlite://}"* | tail -1 | cut -f1) ;;
    postgres) size=$(psql -At "$pg" -c "SELECT pg_database_size('gridprint_real_year')") ;;
  esac
  printf '%-8s run %s: import + compute %7.1f s, peak RSS %5d MB, database %5d MB\n' \
    "$backend" "$run" "$secs" $((kib / 1024)) $((size / 1048576))
  grep -E '^(imported|computed)' "$work/import.log" | sed 's/^/    /'
}

for run in $(seq 1 "$runs"); do
  db="$work/year.db"
  rm -f "$db" "$db"-*
  one_run sqlite "$run" "sqlite://$db"
  if [ -n "$pg" ]; then
    psql -q "$pg" -c "DROP DATABASE IF EXISTS gridprint_real_year" -c "CREATE DATABASE gridprint_real_year"
    one_run postgres "$run" "${pg%/*}/gridprint_real_year"
  fi
done

if $holes; then
  . "$root/scripts/lib/server.sh"
  port="$(free_port)" base="http://127.0.0.1:$port"
  code="$(grant_code bench@example.org "$bin" --database "sqlite://$work/year.db")"
  "$bin" --database "sqlite://$work/year.db" serve --listen "127.0.0.1:$port" \
    --check-providers false --rate-limit-per-second 0 >"$work/serve.log" 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  wait_until_serving "$base" "$pid" "$work/serve.log"
  token="$(token_for "$base" bench@example.org 'correct horse battery staple' "$code")"
  python3 "$root/scripts/real-year-holes.py" "$base" "$token" 2022-01-01T00:00Z 2023-01-01T00:00Z
fi
