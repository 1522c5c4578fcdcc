#!/usr/bin/env bash
# A throwaway PostgreSQL 15 on loopback for DripperPostgres's tests, from Debian's packages.
#
#   eval "$(scripts/postgres.sh start /tmp/dripper-pg)"   # prints the exports the tests read
#   swift test
#   scripts/postgres.sh stop /tmp/dripper-pg
#
# `start` installs postgresql-15 with apt-get if it is missing, makes a new data folder under the
# given one (removed by `stop`), starts the server on 127.0.0.1 at a free port, creates the
# database `dripper`, and prints DRIPPER_POSTGRES_URL and the folder's name. `restart` stops and
# starts the server of that folder (the tests of a server restarted under load run it).
set -euo pipefail

command="${1:-}"
root="${2:-}"
if [[ -z "$command" || -z "$root" ]]; then
  echo "usage: postgres.sh start|stop|restart FOLDER" >&2
  exit 2
fi

bin=/usr/lib/postgresql/15/bin
as_postgres() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
  start)
    if [[ ! -x "$bin/initdb" ]]; then
      echo "installing postgresql-15 from Debian's packages" >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >&2
    fi
    mkdir -p "$root"
    if [[ "$(id -u)" == 0 ]]; then chown postgres "$root"; fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_postgres "$bin/initdb" -D "$root/data" -U dripper --auth=trust -E UTF8 --no-locale >"$root/initdb.log" 2>&1 \
      || { cat "$root/initdb.log" >&2; exit 1; }
    echo "$port" >"$root/port"
    as_postgres "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w \
      -o "-p $port -k $root -c listen_addresses=127.0.0.1 -c max_connections=200" start >&2
    as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U dripper dripper
    echo "export DRIPPER_POSTGRES_URL=postgres://dripper@127.0.0.1:$port/dripper"
    echo "export DRIPPER_POSTGRES_FOLDER=$root"
    ;;
  restart)
    as_postgres "$bin/pg_ctl" -D "$root/data" -m fast -w stop >&2
    as_postgres "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w \
      -o "-p $(cat "$root/port") -k $root -c listen_addresses=127.0.0.1 -c max_connections=200" start >&2
    ;;
  stop)
    if [[ -d "$root/data" ]]; then as_postgres "$bin/pg_ctl" -D "$root/data" -m fast -w stop >&2 || true; fi
    rm -rf "$root"
    ;;
  *)
    echo "postgres.sh: no command '$command' (start, stop or restart)" >&2
    exit 2
    ;;
esac
