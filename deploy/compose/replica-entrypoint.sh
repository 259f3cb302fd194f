#!/bin/sh
# The standby's entrypoint. On its first start (an empty data directory) it copies the primary with
# pg_basebackup as the replication role; --write-recovery-conf leaves standby.signal and the
# primary_conninfo, so PostgreSQL then starts as a hot standby following the primary's WAL stream.
# Later starts find the copy and go straight to the image's own entrypoint.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${PGPASSWORD:-}" ]; then
    echo 'postgres-replica: set REPLICATION_PASSWORD (see docs/DEPLOYING.md#read-replicas)' >&2
    exit 1
  fi
  mkdir -p "$PGDATA"
  chown postgres:postgres "$PGDATA"
  chmod 700 "$PGDATA"
  gosu postgres pg_basebackup --host=postgres --port=5432 --username=replicator \
    --pgdata="$PGDATA" --wal-method=stream --write-recovery-conf --checkpoint=fast
fi
exec docker-entrypoint.sh postgres
