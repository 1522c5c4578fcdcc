#!/usr/bin/env bash
# Runs the Accounts service (a StationHost of one key per account): a run killed with -9 resumes
# and ends with every account opened once; a reminder due while the service was down is paid when
# it starts again; the host keeps at most its cap resident and one open file per resident key.
set -euo pipefail
binary=$1
# shellcheck source=session-lib.sh
source "$(dirname "$0")/session-lib.sh"

# kill -9 in the middle of opening 10,000 accounts, 1,000 resident at most; then the same command.
"$binary" --data "$work/bank" --accounts 10000 --resident 1000 --bonus-after 3600 > "$work/killed" 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ "$(grep -c '^progress:' "$work/killed")" -ge 2 ] && break; sleep 0.1; done
files=$(ls "/proc/$pid/fd" 2> /dev/null | wc -l)
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
[ "$files" -le 1100 ] || { echo "FAILED: $files open files with 1,000 accounts resident" >&2; exit 1; }
"$binary" --data "$work/bank" --accounts 10000 --resident 1000 --bonus-after 3600 > "$work/resumed"
grep -q "^resuming in $work/bank: " "$work/resumed" \
  || { echo "FAILED: the run after kill -9 did not resume" >&2; cat "$work/resumed" >&2; exit 1; }
grep -qE '^  passivations +[0-9]+  [1-9][0-9]* to stay under the cap$' "$work/resumed" \
  || { echo "FAILED: the cap of 1,000 resident accounts evicted none" >&2; cat "$work/resumed" >&2; exit 1; }
"$binary" --data "$work/bank" --accounts 10000 --verify > "$work/verified"
grep -q '^verified 10000 accounts: each opened once, 0 bonuses paid$' "$work/verified" \
  || { echo "FAILED: the accounts after kill -9 and a resume:" >&2; cat "$work/verified" >&2; exit 1; }

# A bonus due while the service was down is paid as it starts again, once.
"$binary" --data "$work/bonus" --accounts 50 --bonus-after 1 > /dev/null
sleep 1.5
"$binary" --data "$work/bonus" --accounts 50 --bonus-after 1 > "$work/restarted"
grep -q '^bonuses paid on start: 50 (due while the service was down)$' "$work/restarted" \
  || { echo "FAILED: the bonuses due while down were not paid on start:" >&2; cat "$work/restarted" >&2; exit 1; }
"$binary" --data "$work/bonus" --accounts 50 --verify > "$work/verified"
grep -q '^verified 50 accounts: each opened once, 50 bonuses paid$' "$work/verified" \
  || { echo "FAILED: the bonuses after a restart:" >&2; cat "$work/verified" >&2; exit 1; }

status=0
"$binary" --accounts 5 > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 2 ] && grep -q "^error: '--data DIR' is needed$" "$work/errors" \
  || { echo "FAILED: a missing --data exited $status" >&2; exit 1; }
echo "Accounts: a kill -9 resumed with every account opened once, bonuses paid after a restart"
