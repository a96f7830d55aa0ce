#!/usr/bin/env bash
# Schema conformance: schemathesis (PyPI) against /v1/openapi.json of a real `gridprint serve --demo`
# with a valid token, with all of its checks but the ones listed (with the reason) below. Fails when
# any answer is a 5xx, does not match the schema, status, content type or headers the description
# publishes for its operation, or accepts data the schema rules out.
#
#   scripts/schemathesis.sh [--max-examples 25] [--release] [--keep]
#
# Installs schemathesis (pinned) into a virtualenv under target/ on first use. Uses a temporary SQLite
# database and a free port; runs in about 1–3 minutes on the project's 2-core machine.
set -euo pipefail

max_examples=25
profile=debug
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-examples) max_examples="$2"; shift 2 ;;
    --release) profile=release; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/lib/server.sh"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
version="${SCHEMATHESIS_VERSION:-4.32.5}"
venv="${SCHEMATHESIS_VENV:-$target_dir/schemathesis-venv}"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
  echo "== installing schemathesis $version into $venv"
  rm -rf "$venv"   # a venv moved or left half-built is not reused
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$version"
fi
"$venv/bin/schemathesis" --version

if [ -n "${GRIDPRINT_BIN:-}" ]; then
  bin="$GRIDPRINT_BIN"   # CI passes the binary `cargo test` just built
else
  echo "== building gridprint ($profile)"
  if [ "$profile" = release ]; then
    (cd "$root" && cargo build --release --locked -p gridprint --bin gridprint)
  else
    (cd "$root" && cargo build --locked -p gridprint --bin gridprint)
  fi
  bin="$target_dir/$profile/gridprint"
fi

work="$(mktemp -d /tmp/gridprint-schemathesis.XXXXXX)"
db="sqlite://$work/g.db"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -z "$keep" ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT

email="schemathesis@example.org"
password="schemathesis password 123"
export GRIDPRINT_LOG=warn
code="$(grant_code "$email" "$bin" --database "$db")"
"$bin" --database "$db" serve --demo --listen 127.0.0.1:0 --check-providers false \
  --rate-limit-per-second 0 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 1200); do
  grep -q "^listening on" "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
base=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$work/server.log" | head -1)
[ -n "$base" ] || { echo "server did not start"; cat "$work/server.log"; exit 1; }
echo "== server at $base"
token="$(token_for "$base" "$email" "$password" "$code")"
[ -n "$token" ] || { echo "no token"; exit 1; }

# Every check runs except these, each for a reason OpenAPI cannot express:
# - positive_data_acceptance: a schema-valid request may still break a rule across parameters
#   (`zone` XOR `lat`+`lon`, `start` and `end` both or neither, start <= end, `aggregate=true` needs
#   start and end, range limits), which docs/api.md §2 answers with 400; OpenAPI 3.1 query parameters
#   cannot state such rules.
excluded="positive_data_acceptance"
echo "== schemathesis: every check except $excluded; at most $max_examples examples per operation"
# One worker: with two, hypothesis parses lambda sources with `ast` in two threads at once, and the
# machine's CPython 3.11.7 then fails at random with "SystemError: AST constructor recursion depth
# mismatch" (a CPython bug of concurrent `ast` use, not an answer of gridprint's; seen in CI).
set +e
cd "$work"   # schemathesis keeps its example database in ./.schemathesis
"$venv/bin/schemathesis" --config-file "$root/scripts/schemathesis.toml" run "$base/v1/openapi.json" \
  --url "$base" \
  -H "Authorization: Bearer $token" \
  --checks all \
  --exclude-checks "$excluded" \
  --max-examples "$max_examples" \
  --phases examples,coverage,fuzzing \
  --seed 8 \
  --workers 1 \
  --request-timeout 30 \
  --no-color \
  --report junit --report-dir "$work/report" 2>&1 | tee "$work/schemathesis.log"
rc=${PIPESTATUS[0]}
set -e
if grep -qiE "panicked|stack backtrace" "$work/server.log"; then
  echo "the server logged a panic:"; grep -iE -A5 "panicked" "$work/server.log" | head -40
  rc=1
fi
echo "== schemathesis exit code $rc"
exit "$rc"
