#!/usr/bin/env bash
# A generated client works (issue #29): openapi-python-client (PyPI, pinned) in a throwaway venv
# generates a Python client from /openapi.json of a running `gridprint serve --demo`, refusing any
# warning (a boolean schema, an unsupported media type, a missing body...), and check.py, beside
# this script, uses that generated code alone to register, get a token and read /v1/footprints as
# JSON and as CSV (the CSV twin /v1/footprints.csv), comparing the two.
#
# Usage: bash tests/clients/openapi-python.sh   (GRIDPRINT_BIN: a prebuilt binary; else debug build)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
GENERATOR_VERSION=0.29.1
EMAIL=generated-client@example.org

if [ -z "${GRIDPRINT_BIN:-}" ]; then
  cargo build --locked -q -p gridprint --bin gridprint
  GRIDPRINT_BIN="$root/target/debug/gridprint"
fi

work="$(mktemp -d /tmp/gridprint-openapi-python.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
db="sqlite://$work/gridprint.db"

echo "clients: venv with openapi-python-client==$GENERATOR_VERSION"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$GENERATOR_VERSION"

# The demo data (bundled provider documents) in a fresh SQLite database; one granted email and the
# registration code `access grant` prints for it.
code="$("$GRIDPRINT_BIN" --database "$db" --log warn access grant "$EMAIL" | sed -n 's/^code: //p')"
[ -n "$code" ] || { echo "clients: access grant printed no registration code" >&2; exit 1; }
"$GRIDPRINT_BIN" --database "$db" --log warn serve --demo --listen 127.0.0.1:0 --check-providers false \
  >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 1200); do
  url="$(sed -n 's/^listening on \(http:\/\/[0-9.:]*\).*$/\1/p' "$work/server.log" 2>/dev/null | head -n 1 || true)"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; echo "clients: server exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log"; echo "clients: server did not start" >&2; exit 1; }
echo "clients: gridprint at $url"

# No post-generation hooks (ruff is not installed); any warning fails the generation.
printf 'package_name_override: gridprint_client\npost_hooks: []\n' >"$work/config.yaml"
(cd "$work" && "$work/venv/bin/openapi-python-client" generate --url "$url/openapi.json" \
  --config "$work/config.yaml" --meta none --output-path "$work/gridprint_client" --fail-on-warning)

PYTHONPATH="$work" "$work/venv/bin/python" tests/clients/check.py "$url" "$EMAIL" "$code"
echo "clients: the generated client registered, got a token and read footprints as JSON and CSV"
