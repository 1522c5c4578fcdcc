#!/usr/bin/env bash
# Runs the Wallets HTTP sample (Samples/Wallets) on 127.0.0.1 under load from concurrent clients:
# killed with -9 mid-load and started again, every acknowledged deposit is there exactly once and
# every retried Idempotency-Key was applied once; stopped with SIGTERM mid-load, it exits 0 and
# loses nothing acknowledged. Usage: wallets-run.sh BIN-DIR (where Wallets and wallets-load are).
set -euo pipefail
bin=$1
# shellcheck source=session-lib.sh
source "$(dirname "$0")/session-lib.sh"
server_pid=
trap '[ -n "$server_pid" ] && kill -9 "$server_pid" 2> /dev/null; rm -rf "$work"' EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
wallets=120
requests=3000

start_server() {  # start_server LOG
  "$bin/Wallets" --data "$work/data" --port "$port" --log-level warning > "$1" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 300); do grep -q '^listening on ' "$1" && return 0; sleep 0.1; done
  echo "FAILED: the server did not start:" >&2; cat "$1" >&2; exit 1
}

wait_for_progress() {  # wait_for_progress LOG COUNT
  for _ in $(seq 1 600); do
    [ "$(grep -c '^progress:' "$1" || true)" -ge "$2" ] && return 0
    sleep 0.1
  done
  echo "FAILED: the load made no progress:" >&2; cat "$1" >&2; exit 1
}

# kill -9 mid-load, then the same folder again: the clients retry what was not answered.
start_server "$work/server-1"
"$bin/wallets-load" load --port "$port" --run a --requests "$requests" --wallets "$wallets" --clients 16 \
  --acks "$work/acks-a" --seconds 240 > "$work/load-a" &
load_pid=$!
wait_for_progress "$work/load-a" 8
kill -9 "$server_pid"
wait "$server_pid" 2> /dev/null || true
acknowledged=$(wc -l < "$work/acks-a")
start_server "$work/server-2"
wait "$load_pid" || { echo "FAILED: deposits went unanswered after the restart:" >&2; cat "$work/load-a" >&2; exit 1; }
"$bin/wallets-load" verify --port "$port" --wallets "$wallets" --acks "$work/acks-a" > "$work/verified-a" \
  || { echo "FAILED: after kill -9:" >&2; cat "$work/verified-a" >&2; exit 1; }
retried=$(sed -n 's/.* \([0-9]*\) retries.*/\1/p' "$work/load-a")
[ "$retried" -gt 0 ] || { echo "FAILED: no request was retried across the kill" >&2; exit 1; }

# SIGTERM mid-load: the server stops, then the host closes; exit 0, nothing acknowledged lost.
"$bin/wallets-load" load --port "$port" --run b --requests "$requests" --wallets "$wallets" --clients 16 \
  --acks "$work/acks-b" --seconds 240 > "$work/load-b" &
load_pid=$!
wait_for_progress "$work/load-b" 8
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
[ "$status" -eq 0 ] || { echo "FAILED: SIGTERM exited $status:" >&2; cat "$work/server-2" >&2; exit 1; }
start_server "$work/server-3"
wait "$load_pid" || { echo "FAILED: deposits went unanswered after SIGTERM:" >&2; cat "$work/load-b" >&2; exit 1; }
"$bin/wallets-load" verify --port "$port" --wallets "$wallets" --acks "$work/acks-a" "$work/acks-b" > "$work/verified-b" \
  || { echo "FAILED: after SIGTERM:" >&2; cat "$work/verified-b" >&2; exit 1; }
kill -TERM "$server_pid"
wait "$server_pid" || { echo "FAILED: the last SIGTERM did not exit 0" >&2; exit 1; }
server_pid=

# Bad flags: a one-line reason and exit status 2.
status=0
"$bin/Wallets" --port nope > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 2 ] && grep -q "^error: '--port' needs a number from 0 to 65535$" "$work/errors" \
  || { echo "FAILED: a bad --port exited $status" >&2; cat "$work/errors" >&2; exit 1; }
echo "Wallets: kill -9 at $acknowledged acknowledged ($retried retries), then SIGTERM, under load:" \
  "$(cat "$work/verified-b")"
