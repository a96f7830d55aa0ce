#!/usr/bin/env bash
# Replica cold start, SQLite against PostgreSQL (issue #31; docs/performance.md): the seconds from
# launching `serve --read-only` on an existing database until it logs "listening on" (the cache is
# loaded before it listens), the two stores alternating, and the RSS at that moment. Not part of CI.
#
#   scripts/cold-start.sh BIN SQLITE_FILE POSTGRES_URL [ROUNDS]
#
# Write the same data into both first, e.g. ten years:
#   synth_year --database /data/ten.db --start 2016-11-26 --days 3652
#   synth_year --database postgres://postgres@127.0.0.1:5432/tenyears --start 2016-11-26 --days 3652
set -euo pipefail
bin="${1:?usage: cold-start.sh BIN SQLITE_FILE POSTGRES_URL [ROUNDS]}"
sqlite="${2:?SQLITE_FILE}"
postgres="${3:?POSTGRES_URL}"
rounds="${4:-3}"
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/server.sh"
port="$(free_port)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for i in $(seq 1 "$rounds"); do
  for url in "sqlite://$sqlite" "$postgres"; do
    : >"$log"
    t0=$(date +%s.%N)
    GRIDPRINT_LOG=info "$bin" --database "$url" serve --read-only --check-providers false \
      --listen "127.0.0.1:$port" >"$log" 2>&1 &
    pid=$!
    until grep -q "listening on" "$log"; do
      kill -0 "$pid" 2>/dev/null || { echo "serve exited:"; tail -5 "$log"; exit 1; }
      sleep 0.1
    done
    t1=$(date +%s.%N)
    rss=$(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$pid/status")
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    echo "round $i ${url%%:*}: $(echo "$t1 - $t0" | bc) s to listening, RSS ${rss} MiB"
  done
done
