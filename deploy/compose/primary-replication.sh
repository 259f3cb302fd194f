#!/bin/sh
# Lets the streaming replica (the postgres-replica service, profile "replica") copy and follow this
# cluster: a role with the REPLICATION attribute and its pg_hba.conf line. The image runs it at the
# cluster's first start; on a cluster made before, run it once (it is idempotent):
#   docker compose exec postgres sh /docker-entrypoint-initdb.d/replication.sh
# Without REPLICATION_PASSWORD it does nothing. No `exit` or `set`: the image may source this file.
if [ -n "${REPLICATION_PASSWORD:-}" ]; then
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    --set password="$REPLICATION_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE replicator WITH LOGIN REPLICATION PASSWORD %L', :'password')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'replicator') \gexec
SQL
  grep -q '^host replication replicator ' "$PGDATA/pg_hba.conf" ||
    echo 'host replication replicator all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  psql --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -qc 'SELECT pg_reload_conf()' >/dev/null
fi
