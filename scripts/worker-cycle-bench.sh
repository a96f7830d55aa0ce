#!/usr/bin/env bash
# The worker's cycle time, two builds compared (issue #46: the cycle with the new forecast must stay
# within 1.5x of the old one). Each round copies DB afresh for each build, sets the clock to AT with
# faketime, runs `worker --once` with no provider configured (so the cycle is the stored history's:
# load, estimate, forecast, store, recompute, archive) and reads the seconds from its cycle line. The builds
# alternate, BASE first in odd rounds. Prints every round and the medians. Not part of CI.
# HEAD_DB=FILE gives HEAD its own database (e.g. DB with the TSO forecasts imported, which BASE's
# schema may not hold); by default both read DB.
#
#   scripts/worker-cycle-bench.sh BASE_BIN HEAD_BIN DB AT [ROUNDS]
#   e.g. scripts/worker-cycle-bench.sh old/gridprint target/release/gridprint \
#          /tmp/gridprint-forecast-bench/recordings-2022.db '2022-10-15 12:00:00' 5
set -euo pipefail
base="${1:?usage: worker-cycle-bench.sh BASE_BIN HEAD_BIN DB AT [ROUNDS]}"
head="${2:?HEAD_BIN}"
db="${3:?DB (a SQLite file with stored inputs)}"
at="${4:?AT (UTC, as faketime reads it: 'YYYY-MM-DD HH:MM:SS')}"
rounds="${5:-5}"
command -v faketime >/dev/null || { echo "install faketime (Debian package faketime)"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
head_db="${HEAD_DB:-$db}"
run() { # BIN DB -> seconds of its cycle
  cp "$2" "$work/copy.db"
  TZ=UTC GRIDPRINT_LOG=info faketime "$at" "$1" worker --once --no-entsoe --no-elexon --no-epias \
    --database "sqlite://$work/copy.db" 2>&1 | sed -n 's/.*cycle .*, \([0-9.]*\) s\(;.*\)\{0,1\}$/\1/p' | tail -1
}
declare -a b h
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then tb=$(run "$base" "$db"); th=$(run "$head" "$head_db"); else th=$(run "$head" "$head_db"); tb=$(run "$base" "$db"); fi
  echo "round $i: base $tb s, head $th s"
  b+=("$tb"); h+=("$th")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
mb=$(median "${b[@]}"); mh=$(median "${h[@]}")
echo "median: base $mb s, head $mh s, ratio $(echo "scale=2; $mh / $mb" | bc)"
