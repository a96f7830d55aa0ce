#!/usr/bin/env bash
# Instructions per request of a built server, counted by callgrind (issue #31; docs/performance.md).
# Not part of CI. The count is instructions, so it repeats on a busy machine where wall times do not.
#
#   scripts/callgrind-serve.sh BIN DATABASE N [QUERY]      # MODE=distinct for cache misses
#
# Starts `BIN serve` on the SQLite file DATABASE under `valgrind --tool=callgrind`, obtains a token
# (with a registration code where the build grants one), sends 300 warm-up requests of
# `/v1/footprints?QUERY` (default: zone DE, 2025-06-01, one day) over one keep-alive connection,
# zeroes the counts (`callgrind_control -z`), sends N more, dumps (`callgrind_control -d`) and prints
# the instructions per request. MODE=distinct: the N requests ask zone DE for a 10–15-day window
# starting at a quarter-hour of 2025-06-01..15 drawn from a fixed seed (the same windows for every
# build; no response-cache hits after the first). KEEP=FILE keeps the dump for callgrind_annotate.
# Needs valgrind (Debian package) and a database written by that build's own `synth_year`.
set -euo pipefail

bin="${1:?usage: callgrind-serve.sh BIN DATABASE N [QUERY]}"
db="${2:?database}"
n="${3:?number of requests}"
query="${4:-zone=DE&start=2025-06-01T00:00Z&end=2025-06-02T00:00Z}"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/lib/server.sh"
port="$(free_port)"
work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

email="callgrind@example.org"
password="callgrind password 123"
gp=("$bin" --database "sqlite://$db" --log warn)
code="$(grant_code "$email" "${gp[@]}")"
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "${gp[@]}" serve --listen "127.0.0.1:$port" \
  --rate-limit-per-second 1000000 --rate-limit-burst 1000000 --check-providers false >"$work/server.log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
wait_until_serving "$base" "$pid" "$work/server.log" 6000   # valgrind starts slowly
token="$(token_for "$base" "$email" "$password" "$code")"
[ -n "$token" ] || { echo "no token" >&2; exit 1; }
for _ in $(seq 1 3000); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/v1/footprints?$query")" = 200 ] && break
  sleep 0.2
done

# send MODE COUNT: COUNT requests over one keep-alive connection.
send() {
  python3 - "$base" "$token" "$query" "$1" "$2" <<'PY'
import http.client, random, sys, time, urllib.parse
base, token, query, mode, count = sys.argv[1:6]
u = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(u.hostname, u.port)
rnd = random.Random(1)
first = 1748736000  # 2025-06-01T00:00Z
stamp = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
for _ in range(int(count)):
    q = query
    if mode == "distinct":
        s = first + rnd.randint(0, 14 * 96) * 900
        e = s + rnd.randint(10 * 96, 15 * 96) * 900
        q = f"zone=DE&start={stamp(s)}&end={stamp(e)}"
    conn.request("GET", "/v1/footprints?" + q, headers={"Authorization": "Bearer " + token})
    r = conn.getresponse()
    r.read()
    assert r.status == 200, (r.status, q)
PY
}
send same 300
callgrind_control -z "$pid" >/dev/null
send "${MODE:-same}" "$n"
callgrind_control -d "$pid" >/dev/null
sleep 1
total="$(grep -h -m1 '^summary:\|^totals:' "$work"/cg.out.* | awk '{s += $2} END {print s}')"
echo "instructions/request: $((total / n)) (total $total over $n requests, mode ${MODE:-same})"
[ -z "${KEEP:-}" ] || cp "$work"/cg.out.1 "$KEEP"
