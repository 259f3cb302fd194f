#!/usr/bin/env bash
# Builds PgBouncer 1.24.1 from Debian's source (the version of Debian 13, trixie) into PREFIX
# (default /usr/local/lib/funnel-crm/pgbouncer-1.24.1): the pooler suite runs the service through it
# with named prepared statements, which Debian 12's PgBouncer 1.18 cannot keep across transactions.
# Needs a C compiler, make, pkg-config and the headers of libevent and OpenSSL (Debian:
# apt-get install build-essential pkg-config libevent-dev libssl-dev). Does nothing when built.
set -euo pipefail

VERSION=1.24.1
PREFIX="${1:-/usr/local/lib/funnel-crm/pgbouncer-$VERSION}"
# Debian's archive, as apt reaches it; the checksum is the one Debian's signed Sources index lists.
SOURCE="http://deb.debian.org/debian/pool/main/p/pgbouncer/pgbouncer_$VERSION.orig.tar.gz"
SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0

if [ -x "$PREFIX/bin/pgbouncer" ] && "$PREFIX/bin/pgbouncer" --version | grep -q "PgBouncer $VERSION"; then
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/source.tar.gz" "$SOURCE"
echo "$SHA256  $work/source.tar.gz" | sha256sum -c --quiet -
tar -xzf "$work/source.tar.gz" -C "$work"
cd "$work/pgbouncer-$VERSION"
./configure --prefix="$PREFIX" --without-cares --without-pam --without-systemd >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; exit 1; }
make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -50 "$work/make.log" >&2; exit 1; }
make install >/dev/null
"$PREFIX/bin/pgbouncer" --version | head -1
