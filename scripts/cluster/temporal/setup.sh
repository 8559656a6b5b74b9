#!/bin/sh
# One-shot set-up of the engine's Temporal cluster on PostgreSQL, safe to run again:
# creates the `temporal` and `temporal_visibility` databases if they are missing, brings
# both schemas to the version this server release embeds, then (once the frontend answers)
# creates the engine's namespace with its retention.
#
# Used by docker-compose.yml (the temporalio/admin-tools one-shot service) and by
# `npm run cluster` (scripts/cluster/), so both set the cluster up the same way.
#
#   schema     sets up the databases only (before the Temporal services start)
#   namespace  creates the namespace only (after the frontend is up)
#   (none)     both
#
# Environment (defaults are the local cluster's): POSTGRES_SEEDS, DB_PORT, POSTGRES_USER,
# POSTGRES_PWD, TEMPORAL_DBNAME, VISIBILITY_DBNAME, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
# TEMPORAL_NAMESPACE_RETENTION, SQL_TOOL (temporal-sql-tool), TEMPORAL_CLI (temporal).
#
# The schema names are those the sql tool embeds (its --help lists only MySQL's; these work):
#   postgresql/v12/temporal and postgresql/v12/visibility
set -eu

: "${POSTGRES_SEEDS:=127.0.0.1}" "${DB_PORT:=5432}" "${POSTGRES_USER:=temporal}" "${POSTGRES_PWD:=temporal}"
: "${TEMPORAL_DBNAME:=temporal}" "${VISIBILITY_DBNAME:=temporal_visibility}"
: "${TEMPORAL_ADDRESS:=127.0.0.1:7233}" "${TEMPORAL_NAMESPACE:=default}" "${TEMPORAL_NAMESPACE_RETENTION:=72h}"
: "${SQL_TOOL:=temporal-sql-tool}" "${TEMPORAL_CLI:=temporal}"

sql_tool() {
  "$SQL_TOOL" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

schema() {
  db=$1 name=$2
  # create-database fails when the database exists; whether it is usable shows next.
  if sql_tool --db "$db" create-database >/dev/null 2>&1; then echo "created database $db"; fi
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema --schema-name "postgresql/v12/$name"
  echo "database $db: schema postgresql/v12/$name up to date"
}

namespace() {
  # The frontend may still be joining its peers ("Not enough hosts"); wait up to 2 minutes.
  i=0
  until "$TEMPORAL_CLI" operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -le 120 ] || { echo "the Temporal frontend at $TEMPORAL_ADDRESS did not become healthy" >&2; exit 1; }
    sleep 1
  done
  if "$TEMPORAL_CLI" operator namespace describe --address "$TEMPORAL_ADDRESS" -n "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
    echo "namespace $TEMPORAL_NAMESPACE exists"
  else
    "$TEMPORAL_CLI" operator namespace create --address "$TEMPORAL_ADDRESS" -n "$TEMPORAL_NAMESPACE" --retention "$TEMPORAL_NAMESPACE_RETENTION"
    echo "namespace $TEMPORAL_NAMESPACE created (retention $TEMPORAL_NAMESPACE_RETENTION)"
  fi
}

case "${1:-all}" in
  schema) schema "$TEMPORAL_DBNAME" temporal; schema "$VISIBILITY_DBNAME" visibility ;;
  namespace) namespace ;;
  all) schema "$TEMPORAL_DBNAME" temporal; schema "$VISIBILITY_DBNAME" visibility; namespace ;;
  *) echo "usage: $0 [schema|namespace]" >&2; exit 2 ;;
esac
