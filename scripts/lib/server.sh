# Steps the scripts share when they start a gridprint server and talk to it: a free port, waiting
# until the server answers, an account's registration code and a token. Sourced, not run
# (`. "$root/scripts/lib/server.sh"`); needs python3 and curl. Works with every build since 0aca2b4
# (builds before registration codes print none, and register without one).

# A free loopback port, chosen by the kernel.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits until BASE/v1/status answers. Fails, printing LOG, when the server PID exits first or
# after TRIES tenths of a second (default 1200).
wait_until_serving() {
  local base="$1" pid="$2" log="$3" tries="${4:-1200}"
  for _ in $(seq 1 "$tries"); do
    curl -s -o /dev/null "$base/v1/status" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "the server exited" >&2; return 1; }
    sleep 0.1
  done
  cat "$log" >&2
  echo "the server did not answer $base/v1/status within $((tries / 10)) s" >&2
  return 1
}

# Grants EMAIL with the gridprint command CMD... (binary and global flags) and prints the
# registration code it printed (nothing from a build that prints none).
grant_code() {
  local email="$1"; shift
  "$@" access grant "$email" | sed -n 's/^code: *//p' | head -1
}

# Registers EMAIL with PASSWORD (and CODE when given) at BASE, then prints a token for it;
# nothing when none was given.
token_for() {
  local base="$1" email="$2" password="$3" code="${4:-}"
  local body="{\"email\":\"$email\",\"password\":\"$password\"${code:+,\"code\":\"$code\"}}"
  curl -s -o /dev/null -X POST "$base/token-request/register" -H 'content-type: application/json' -d "$body"
  curl -sf -X POST "$base/token-request/get_token" -H 'content-type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$password\"}" | sed -n 's/.*"access_token": *"\([^"]*\)".*/\1/p'
}
