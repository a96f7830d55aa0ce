#!/usr/bin/env bash
# The forecast's yardstick on the real year 2022 (issue #46; docs/forecast.md). Imports the
# recordings of ../shared/data/recordings-2022/ into a SQLite database once (kept in WORK), then:
#   1. with --fit: fits each class's parameters on the first half of 2022 (origins every 71 h,
#      2022-01-30 .. 2022-07-01; the fitted values belong in ForecastConfig::default);
#   2. scores the forecast on the second half (origins every 31 h, 2022-07-01 .. 2023-01-01),
#      model against persistence, per zone and horizon band, and prints the table and its run time.
# Benchmarks may read ../shared; the tests use data/fixtures/recordings-2022-slice. Not part of CI.
#
# With --dk, the same for the TSOs' forecasts as inputs, on ../shared/data/tso-forecasts-dk-2023/
# (the Transparency Platform's website exports for DK1 and DK2, 2023; no flows, so the LOCAL
# footprint is scored): with --fit the blend's weights are measured on 2023-H1 (they belong in
# BlendWeights::default), then 2023-H2 is scored with the TSOs' day-ahead forecasts published before
# each origin, against the same model without them and persistence.
#
#   scripts/forecast-bench.sh [--dk] [--fit] [BIN]     (WORK=/tmp/gridprint-forecast-bench by default)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fit=false
dk=false
while [ "${1:-}" = "--fit" ] || [ "${1:-}" = "--dk" ]; do
  if [ "$1" = "--fit" ]; then fit=true; else dk=true; fi
  shift
done
bin="${1:-$root/target/release/gridprint}"
work="${WORK:-/tmp/gridprint-forecast-bench}"
if $dk; then
  data="${GRIDPRINT_TSO_EXPORTS:-$root/../shared/data/tso-forecasts-dk-2023}"
  [ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release first"; exit 1; }
  [ -d "$data" ] || { echo "no exports at $data (set GRIDPRINT_TSO_EXPORTS)"; exit 1; }
  mkdir -p "$work"
  db="$work/tso-forecasts-dk-2023.db"
  if [ ! -s "$db" ]; then
    echo "importing $data into $db (once)"
    rm -f "$db.part"
    GRIDPRINT_LOG=warn "$bin" import --database "sqlite://$db.part" --no-compute "$data"
    mv "$db.part" "$db"
  fi
  export GRIDPRINT_LOG=warn
  if $fit; then
    echo "== blend weights measured on the first half of 2023"
    /usr/bin/time -f "fit: %e s, %M KiB peak" "$bin" forecast-eval --database "sqlite://$db" \
      --from 2023-01-30T00:00:00Z --to 2023-07-01T00:00:00Z --every 31h --tso --local --fit
  fi
  echo "== scored on the second half of 2023"
  /usr/bin/time -f "score: %e s, %M KiB peak" "$bin" forecast-eval --database "sqlite://$db" \
    --from 2023-07-01T00:00:00Z --to 2024-01-01T00:00:00Z --every 31h --tso --local
  exit 0
fi
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
