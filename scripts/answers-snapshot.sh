#!/usr/bin/env bash
# Snapshot of the data API's answers: runs `gridprint serve --demo` on a fresh SQLite database in a
# temp directory, obtains a token, and saves the body, status and content type of a matrix of
# requests (every /v1 endpoint: several zones, windows and parameters, aggregates, CSV, errors) plus
# /v1/openapi.json into OUT_DIR. Run it before and after a change and compare:
#
#   scripts/answers-snapshot.sh /tmp/before            # GRIDPRINT_BIN=path uses a prebuilt binary
#   scripts/answers-snapshot.sh /tmp/after
#   diff -r /tmp/before /tmp/after                     # empty: byte-identical answers
#
# Headers that name the moment or the data version (ETag, Date, request ids) are not saved; the
# caching headers (Cache-Control, Vary) are saved in `headers.txt`, apart from the bodies. Answers
# without start and end (the current slot) have their timestamps masked as NOW_SLOT.
set -euo pipefail

out="${1:?usage: answers-snapshot.sh OUT_DIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${GRIDPRINT_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/gridprint}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build -p gridprint, or set GRIDPRINT_BIN)" >&2; exit 2; }

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

. "$root/scripts/lib/server.sh"
port="$(free_port)"
db="sqlite://$work/demo.db"
email="snapshot@example.org"
password="snapshot password 123"

"$bin" --database "$db" --log warn import --demo >/dev/null 2>&1
code="$(grant_code "$email" "$bin" --database "$db" --log warn)"
GRIDPRINT_RATE_LIMIT_PER_SECOND=0 "$bin" --database "$db" --log warn serve --listen "127.0.0.1:$port" \
  --check-providers false >"$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
wait_until_serving "$base" "$server_pid" "$work/server.log" 300
token="$(token_for "$base" "$email" "$password" "$code")"
[ -n "$token" ] || { echo "no token" >&2; cat "$work/server.log" >&2; exit 1; }
# Wait until the data cache is loaded (data routes answer 503 before).
for _ in $(seq 1 300); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/v1/load?zone=DE")
  [ "$code" != 503 ] && break
  sleep 0.1
done

rm -rf "$out"
mkdir -p "$out"
n=0
# mask FILE: timestamps become NOW_SLOT (also usable on older snapshots: `. answers-snapshot.sh`
# is not needed, the sed below is the whole rule).
mask() {
  sed -i -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:00Z/NOW_SLOT/g' "$1"
}
# fetch PATH?QUERY [extra curl args…]
fetch() {
  local path="$1"; shift
  n=$((n + 1))
  local name
  name="$(printf '%03d' "$n")-$(printf '%s' "$path" | tr -c 'A-Za-z0-9_.,=-' '_' | cut -c1-120)"
  local meta
  meta=$(curl -s -o "$out/$name" -D "$work/h" -w '%{http_code} %{content_type}' \
    -H "Authorization: Bearer $token" "$@" "$base$path")
  printf '%s %s %s\n' "$name" "$meta" "$*" >>"$out/index.txt"
  # Without start and end an answer is about the current slot: mask its timestamps.
  case "$path" in *start=*|*openapi*) ;; *) mask "$out/$name" ;; esac
  {
    printf '%s' "$name"
    grep -i -E '^(cache-control|vary):' "$work/h" | tr -d '\r' | tr '\n' ' ' | sed 's/^/ /'
    echo
  } >>"$out/headers.txt"
}

d1="start=2024-06-15T00:00:00Z&end=2024-06-16T00:00:00Z"
d2="start=2024-06-14T00:00:00Z&end=2024-06-16T00:00:00Z"
d3="start=2017-02-02T00:00:00Z&end=2017-02-03T00:00:00Z"
d4="start=2024-09-01T06:07:00Z&end=2024-09-02T12:00:00Z"
windows=("$d1" "$d2" "$d3" "$d4")
locations=("zone=DE" "zone=ES" "zone=fr,DE,XX" "lat=40.4&lon=-3.7" "")

fetch "/v1/openapi.json"
fetch "/v1/zones"
fetch "/v1/zones?format=csv"
fetch "/v1/status"
fetch "/v1/status?format=csv"
fetch "/v1/status/storage"
for ep in generation load imports exports mix footprints impacts green-score environmental-score \
  flow-share mix-share footprint-share impact-share; do
  for w in "${windows[@]}"; do
    for loc in "${locations[@]}"; do
      fetch "/v1/$ep?$loc&$w"
    done
    fetch "/v1/$ep?zone=DE&$w&format=csv"
    fetch "/v1/$ep?zone=ES,FR&$w" -H 'Accept: text/csv'
  done
  fetch "/v1/$ep?zone=DE"
  fetch "/v1/$ep?zone=DE&start=2024-06-15T00:00:00Z"
  fetch "/v1/$ep?zone=DE&lat=1&lon=2"
  fetch "/v1/$ep?lat=91&lon=0"
  fetch "/v1/$ep?lat=0&lon=-30"
  fetch "/v1/$ep?lat=abc&lon=0"
  fetch "/v1/$ep?start=2024-01-01T00:00:00Z&end=2024-03-01T00:00:00Z"
  fetch "/v1/$ep?zone=DE&start=2024-06-16T00:00:00Z&end=2024-06-15T00:00:00Z"
  fetch "/v1/$ep?zone=DE&start=yesterday&end=today"
  fetch "/v1/$ep?zone=DE&$d1&format=xml"
done
# Parameters of single endpoints.
for q in "production_type=solar" "production_type=fossil_gas" "production_type=hydro_pumped_storage" \
  "production_type=nonsense"; do
  fetch "/v1/generation?zone=DE&$d1&$q"
  fetch "/v1/mix?zone=ES&$d1&$q"
done
for ep in imports footprint-share impact-share; do
  fetch "/v1/$ep?zone=DE&source_zone=FR,NL&$d1"
  fetch "/v1/$ep?zone=ES&source_lat=46.5&source_lon=2.5&$d1"
  fetch "/v1/$ep?zone=DE&source_zone=FR&source_lat=1&source_lon=1&$d1"
done
for ep in exports flow-share; do
  fetch "/v1/$ep?zone=FR&destination_zone=ES,DE&$d1"
  fetch "/v1/$ep?zone=FR&destination_lat=40.4&destination_lon=-3.7&$d1"
done
fetch "/v1/mix-share?zone=DE&origin_zone=FR,PL&$d1"
fetch "/v1/mix-share?zone=DE&origin_lat=52&$d1"
for q in "footprint_type=carbon" "footprint_type=WATER" "footprint_type=gold" "scope=operational" \
  "scope=life-cycle&footprint_type=water" "scope=other" "use_global=false" "use_global=0&scope=operational" \
  "use_global=maybe" "aggregate=true" "aggregate=1&footprint_type=carbon&use_global=false" "aggregate=yes"; do
  fetch "/v1/footprints?zone=DE,ES&$d2&$q"
  fetch "/v1/footprints?zone=ES&$d4&$q&format=csv"
done
fetch "/v1/footprints?zone=DE&aggregate=true"
fetch "/v1/footprints?zone=DE&start=2024-06-15T10:00:00Z&end=2024-06-15T10:00:00Z&aggregate=true"
for ep in footprint-share; do
  for q in "footprint_type=carbon" "footprint_type=water&scope=operational" "scope=nope"; do
    fetch "/v1/$ep?zone=DE&$d1&$q"
    fetch "/v1/$ep?zone=DE&$d1&$q&format=csv"
  done
done
for ep in impacts green-score environmental-score impact-share; do
  for q in "scope=operational" "scope=life-cycle" "impact_type=water" "impact_type=carbon" \
    "impact_type=x" "use_global=false" "aggregate=true" "aggregate=true&use_global=false" "aggregate=2"; do
    fetch "/v1/$ep?zone=DE,ES&$d2&$q"
    fetch "/v1/$ep?zone=FR&$d2&$q&format=csv"
  done
  fetch "/v1/$ep?zone=DE&aggregate=true"
done
for q in "" "factor_type=carbon" "factor_type=water&scope=operational" "scope=life-cycle" \
  "production_type=hydro_pumped_storage" "production_type=nuclear&factor_type=carbon" \
  "production_type=x" "factor_type=x" "aggregate=true" "$d1" "$d1&aggregate=true" \
  "$d1&aggregate=true&production_type=solar" "$d1&aggregate=maybe" "start=2024-06-15T00:00:00Z"; do
  fetch "/v1/factors?$q"
  fetch "/v1/factors?$q&format=csv"
done
# Duplicated, empty and unknown parameters.
fetch "/v1/load?zone=ES&zone=DE&$d1"
fetch "/v1/load?zone=&$d1&unknown=1"
fetch "/v1/footprints?zone=DE&footprint_type=&scope=&$d1"
fetch "/v1/nothing-here"
echo "$n requests saved in $out"
