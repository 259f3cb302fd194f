#!/usr/bin/env bash
# Run by `npm test` before jest: installs what the suites need that `npm ci` cannot bring.
# - redis-server (the shared rate limit), Debian's pgbouncer (the pooler suite), chromium (MCP Inspector);
# - PgBouncer 1.24, built from Debian's source by scripts/build-pgbouncer.sh (Debian 12 ships 1.18,
#   which cannot keep named prepared statements), with the C toolchain, pkg-config, curl and the
#   headers of libevent and OpenSSL it needs.
# Silent when everything is there. Installs with apt-get when run as root on Debian/Ubuntu;
# anywhere else it says once what is missing and stops, as the suites could not pass without it.
set -euo pipefail
cd "$(dirname "$0")/.."

PGBOUNCER_1_24="${PGBOUNCER_PREPARED_BIN:-/usr/local/lib/funnel-crm/pgbouncer-1.24.1/bin/pgbouncer}"

# "Debian package|how to tell it is there": a command on PATH, or a file.
REQUIREMENTS=(
  "redis-server|redis-server"
  "pgbouncer|/usr/sbin/pgbouncer"
  "chromium|/usr/bin/chromium"
  "build-essential|cc"
  "build-essential|make"
  "pkg-config|pkg-config"
  "libevent-dev|/usr/include/event2/event.h"
  "libssl-dev|/usr/include/openssl/ssl.h"
  "curl|curl"
  "ca-certificates|/etc/ssl/certs/ca-certificates.crt"
)

present() {
  case "$1" in
    /*) [ -e "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing=()
for requirement in "${REQUIREMENTS[@]}"; do
  package="${requirement%%|*}"
  present "${requirement#*|}" && continue
  [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
done
needs_build=true
[ -x "$PGBOUNCER_1_24" ] && "$PGBOUNCER_1_24" --version 2>/dev/null | grep -q 'PgBouncer 1\.24' && needs_build=false

fail() {
  echo "npm test: $1" >&2
  exit 1
}

if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 ||
    fail "the suites need ${missing[*]} (Debian package names) and this machine has no apt-get; install them, then run npm test again"
  [ "$(id -u)" = 0 ] ||
    fail "the suites need ${missing[*]}; run npm test as root to install them, or: sudo apt-get install -y ${missing[*]}"
  echo "npm test: installing ${missing[*]} (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  log="$(mktemp)"
  trap 'rm -f "$log"' EXIT
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 ||
    { cat "$log" >&2; fail "apt-get could not install ${missing[*]} (its output above)"; }
fi

if $needs_build; then
  [ -n "${PGBOUNCER_PREPARED_BIN:-}" ] &&
    fail "PGBOUNCER_PREPARED_BIN=$PGBOUNCER_PREPARED_BIN is not a PgBouncer 1.24"
  [ "$(id -u)" = 0 ] ||
    fail "PgBouncer 1.24 is not built; run npm test as root to build it, or: sudo bash scripts/build-pgbouncer.sh"
  echo "npm test: building PgBouncer 1.24 from Debian's source (scripts/build-pgbouncer.sh, about two minutes, once)" >&2
  bash scripts/build-pgbouncer.sh >/dev/null
fi
