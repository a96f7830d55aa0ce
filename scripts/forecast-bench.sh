#!/usr/bin/env bash
# The forecast's yardstick on the real year 2022 (issue #46; docs/forecast.md). Imports the
# recordings of ../shared/data/recordings-2022/ into a SQLite database once (kept in WORK), then:
#   1. with --fit: fits each class's parameters on the first half of 2022 (origins every 71 h,
#      2022-01-30 .. 2022-07-01; the fitted values belong in ForecastConfig::default);
#   2. scores the forecast on the second half (origins every 31 h, 2022-07-01 .. 2023-01-01),
#      model against persistence, per zone and horizon band, and prints the table and its run time.
# Benchmarks may read ../shared; the tests use data/fixtures/recordings-2022-slice. Not part of CI.
#
#   scripts/forecast-bench.sh [--fit] [BIN]     (WORK=/tmp/gridprint-forecast-bench by default)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fit=false
if [ "${1:-}" = "--fit" ]; then fit=true; shift; fi
bin="${1:-$root/target/release/gridprint}"
work="${WORK:-/tmp/gridprint-forecast-bench}"
data="${GRIDPRINT_RECORDINGS:-$root/../shared/data/recordings-2022}"
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release first"; exit 1; }
[ -d "$data" ] || { echo "no recordings at $data (set GRIDPRINT_RECORDINGS)"; exit 1; }
mkdir -p "$work"
db="$work/recordings-2022.db"
if [ ! -s "$db" ]; then
  echo "unpacking and importing $data into $db (once)"
  rm -rf "$work/csv" && mkdir -p "$work/csv"
  for f in "$data"/*.csv.gz; do zcat "$f" >"$work/csv/$(basename "$f" .gz)"; done
  GRIDPRINT_LOG=warn "$bin" import --database "sqlite://$db.part" --no-compute "$work/csv"
  mv "$db.part" "$db"
  rm -rf "$work/csv"
fi
export GRIDPRINT_LOG=warn
if $fit; then
  echo "== fit on the first half of 2022"
  /usr/bin/time -f "fit: %e s, %M KiB peak" "$bin" forecast-eval --database "sqlite://$db" \
    --from 2022-01-30T00:00:00Z --to 2022-07-01T00:00:00Z --every 71h --fit
fi
echo "== scored on the second half of 2022"
/usr/bin/time -f "score: %e s, %M KiB peak" "$bin" forecast-eval --database "sqlite://$db" \
  --from 2022-07-01T00:00:00Z --to 2023-01-01T00:00:00Z --every 31h
