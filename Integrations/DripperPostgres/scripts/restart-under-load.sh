#!/usr/bin/env bash
# The PostgreSQL server restarted under load: a node pours deposits with ids into 20 keys while
# the server is stopped and started again. Its pours fail while the server is down, and resume
# after; every deposit it acknowledged is in the store once, none twice.
#
#   restart-under-load.sh PG_FOLDER BIN_FOLDER    (DRIPPER_POSTGRES_URL set by postgres.sh start)
set -euo pipefail
folder="$1"
bin="$2"
here="$(cd "$(dirname "$0")" && pwd)"
prefix="restart-$RANDOM$RANDOM"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bin/DripperPostgresNode" pour "$DRIPPER_POSTGRES_URL" n1 "$prefix" 20 6000 >"$work/acked" 2>"$work/refused" &
node=$!
for _ in $(seq 1 600); do
  [[ $(wc -l <"$work/acked") -ge 800 ]] && break
  sleep 0.2
done
before=$(wc -l <"$work/acked")
bash "$here/postgres.sh" restart "$folder"
after_restart=$(wc -l <"$work/acked")
for _ in $(seq 1 1500); do
  kill -0 "$node" 2>/dev/null || break
  sleep 0.2
done
if kill -0 "$node" 2>/dev/null; then
  kill -9 "$node"
  echo "FAILED: the node did not finish in five minutes after the restart" >&2
  exit 1
fi
wait "$node" || { echo "FAILED: the node exited with an error" >&2; exit 1; }
total=$(wc -l <"$work/acked")
refused=$(wc -l <"$work/refused")
echo "restart under load: $before acknowledged before the restart, $((total - after_restart)) after it, $refused refused"
if [[ $((total - after_restart)) -lt 100 ]]; then
  echo "FAILED: pours did not resume after the restart" >&2
  exit 1
fi
if [[ $refused -gt 0 ]]; then
  echo "a refusal, as the node printed it: $(head -1 "$work/refused")"
fi
"$bin/DripperPostgresNode" verify "$DRIPPER_POSTGRES_URL" "$prefix" 20 6000 <"$work/acked"
