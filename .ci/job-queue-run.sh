#!/usr/bin/env bash
# Runs JobQueue twice with a seed and checks that the counts are the expected ones both times;
# checks that a bad flag prints the usage and exits 2, and that SIGINT ends a run with a summary.
set -euo pipefail
binary=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/expected" <<'EOF_COUNTS'
  submitted          300
  done               299
  failed               1  after 3 attempts
  cancelled            0
  retries             57
EOF_COUNTS
for run in 1 2; do
  "$binary" --jobs 300 --workers 4 --failure-rate 0.2 --seed 7 > "$work/output"
  grep -E '^  (submitted|done|failed|cancelled|retries) ' "$work/output" > "$work/counts"
  if ! diff -u "$work/expected" "$work/counts"; then
    echo "FAILED: run $run of the seeded JobQueue counted differently (diff above)" >&2
    exit 1
  fi
done

status=0
"$binary" --workers 0 > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 2 ] || { echo "FAILED: a bad flag exited with $status, not 2" >&2; exit 1; }
grep -q "^error: '--workers' needs a whole number from 1 to 1000, not '0'$" "$work/errors" \
  || { echo "FAILED: the bad-flag message is not the expected one" >&2; cat "$work/errors" >&2; exit 1; }

# Ctrl-C: in-flight jobs are cancelled, the summary is printed, the status is 130.
"$binary" --jobs 1000000 --seed 1 > "$work/interrupted" 2>&1 &
pid=$!
# Wait until it works (its first progress line), then interrupt it.
for _ in $(seq 1 100); do grep -q '^progress:' "$work/interrupted" && break; sleep 0.1; done
kill -INT "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 130 ] || { echo "FAILED: an interrupted run exited with $status, not 130" >&2; exit 1; }
grep -qE '^  cancelled +[1-9]' "$work/interrupted" \
  || { echo "FAILED: the interrupted run cancelled nothing" >&2; tail "$work/interrupted" >&2; exit 1; }
echo "JobQueue: seeded counts repeat, bad flags and interruption behave"
