#!/usr/bin/env bash
# Makes the demo's two real weeks of Europe (data/demo/, embedded in the binary for `serve --demo`
# and `import --demo`) from the real year 2022 in ../shared/data/recordings-2022/: every row of the
# generation-per-type and physical-flow extracts from 2022-11-28 00:00 to 2022-12-11 23:00 UTC
# (Monday to Sunday), every zone they cover, gzipped without timestamps so a rerun gives the same bytes.
#
#   scripts/demo-extract.sh            (GRIDPRINT_RECORDINGS: another copy of the recordings)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="${GRIDPRINT_RECORDINGS:-$root/../shared/data/recordings-2022}"
out="$root/data/demo"
from="2022-11-28" until="2022-12-12"
[ -d "$src" ] || { echo "no recordings at $src (set GRIDPRINT_RECORDINGS)"; exit 1; }
mkdir -p "$out"
for kind in AggregatedGenerationPerType_16.1.B_C PhysicalFlows_12.1.G; do
  target="$out/2022_11_28-12_11_$kind.csv.gz"
  { zcat "$src/2022_11_$kind.csv.gz"; zcat "$src/2022_12_$kind.csv.gz" | tail -n +2; } \
    | awk -F'\t' -v from="$from" -v until="$until" 'NR == 1 || ($1 >= from && $1 < until)' \
    | gzip -9n >"$target"
  echo "$target: $(zcat "$target" | tail -n +2 | wc -l) rows, $(stat -c %s "$target") bytes"
done
