#!/bin/sh
# The local PostgreSQL image's entry point (deploy/build-local-images.sh): what docker-compose.yml expects of
# the postgres image. On an empty data folder it initialises the cluster with POSTGRES_USER and
# POSTGRES_PASSWORD (password log-ins over the network, trust on the local socket) and creates POSTGRES_DB;
# then it runs the server in the foreground, listening on every address of the container.
set -eu
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown postgres:postgres "$PGDATA" /run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "postgres-entrypoint: set POSTGRES_PASSWORD" >&2; exit 1; }
  password_file="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
  initdb --pgdata="$PGDATA" --username="$user" --pwfile="$password_file" --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait --silent start
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    createdb --username="$user" "$POSTGRES_DB"
  fi
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait --silent stop
  echo "postgres-entrypoint: initialised $PGDATA for $user"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
