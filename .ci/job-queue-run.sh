#!/usr/bin/env bash
# Runs JobQueue twice with a seed and checks that the counts are the expected ones both times, and
# that a run with a failed job exits 1 with its progress on standard error only; checks that a bad
# flag prints the usage and exits 2, and that SIGINT ends a ten-million-job run at once, with a
# summary, in little memory.
set -euo pipefail
binary=$1
# shellcheck source=session-lib.sh
source "$(dirname "$0")/session-lib.sh"

cat > "$work/expected" <<'EOF_COUNTS'
  submitted          300
  done               299
  failed               1  after 3 attempts
  cancelled            0
  retries             57
EOF_COUNTS
for run in 1 2; do
  status=0
  "$binary" --jobs 300 --workers 4 --failure-rate 0.2 --seed 7 > "$work/output" 2> "$work/progress" || status=$?
  [ "$status" -eq 1 ] || { echo "FAILED: a run with a failed job exited with $status, not 1" >&2; exit 1; }
  if grep -q 'progress' "$work/output" || grep -q $'\e' "$work/progress"; then
    echo "FAILED: progress on standard output, or a bar drawn on a standard error that is no terminal" >&2
    exit 1
  fi
  grep -E '^  (submitted|done|failed|cancelled|retries) ' "$work/output" > "$work/counts"
  check "the counts of seeded run $run" "$work/expected" "$work/counts"
done

# --journal: a run killed with -9 and run again with the same flags ends with the counts of a run
# never interrupted (a seeded attempt has the same outcome when it runs again).
flags=(--jobs 6000 --workers 4 --failure-rate 0.2 --seed 7)
"$binary" "${flags[@]}" 2> /dev/null | grep -E '^  (submitted|done|failed|cancelled|retries) ' > "$work/expected" || true
"$binary" "${flags[@]}" --journal "$work/journal" > "$work/killed" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '^progress:' "$work/killed" && break; sleep 0.1; done
{ kill -9 "$pid" && wait "$pid"; } 2> /dev/null || true
"$binary" "${flags[@]}" --journal "$work/journal" > "$work/output" 2> /dev/null || true
grep -q '^JobQueue: resuming from ' "$work/output" \
  || { echo "FAILED: a run after kill -9 did not resume from its journal" >&2; cat "$work/output" >&2; exit 1; }
grep -E '^  (submitted|done|failed|cancelled|retries) ' "$work/output" > "$work/counts"
check "the counts of a run resumed after kill -9" "$work/expected" "$work/counts"

# Issue 50: Ctrl-C and SIGTERM (what a service manager sends at every restart) leave the journal as
# resumable as kill -9 does: the interrupted run ends no job for it, says how many it left, and
# exits 130 or 143; the next run finishes them with an uninterrupted run's counts.
for signal in INT TERM; do
  rm -rf "$work/journal"
  "$binary" "${flags[@]}" --journal "$work/journal" > "$work/stopped" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do grep -q '^progress:' "$work/stopped" && break; sleep 0.1; done
  kill "-$signal" "$pid"
  status=0
  wait "$pid" || status=$?
  want=$([ "$signal" = INT ] && echo 130 || echo 143)
  [ "$status" -eq "$want" ] || { echo "FAILED: a journaled run stopped by SIG$signal exited with $status, not $want" >&2; exit 1; }
  grep -qE '^  cancelled +0$' "$work/stopped" \
    || { echo "FAILED: SIG$signal cancelled jobs of a journaled run" >&2; tail "$work/stopped" >&2; exit 1; }
  grep -qE '^  interrupted +[0-9]+  not ended' "$work/stopped" \
    || { echo "FAILED: a journaled run stopped by SIG$signal did not say what it left" >&2; exit 1; }
  status=0
  "$binary" "${flags[@]}" --journal "$work/journal" > "$work/output" 2> /dev/null || status=$?
  grep -q '^JobQueue: resuming from ' "$work/output" \
    || { echo "FAILED: a run after SIG$signal did not resume from its journal" >&2; cat "$work/output" >&2; exit 1; }
  grep -E '^  (submitted|done|failed|cancelled|retries) ' "$work/output" > "$work/counts"
  check "the counts of a run resumed after SIG$signal" "$work/expected" "$work/counts"
  # Its throughput counts what it finished itself, not what the journal had finished before.
  rate=$(sed -nE 's/^  elapsed .* ([0-9]+) jobs\/s finished$/\1/p' "$work/output")
  [ -n "$rate" ] && [ "$rate" -lt 100000 ] \
    || { echo "FAILED: the resumed run reports $rate jobs/s" >&2; exit 1; }
done

status=0
"$binary" --workers 0 > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 2 ] || { echo "FAILED: a bad flag exited with $status, not 2" >&2; exit 1; }
grep -q "^error: '--workers' needs a whole number from 1 to 1000, not '0'$" "$work/errors" \
  || { echo "FAILED: the bad-flag message is not the expected one" >&2; cat "$work/errors" >&2; exit 1; }

status=0
"$binary" --jobs 20 --failure-rate 1 --seed 1 > /dev/null 2>&1 || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a run where every job failed exited with $status, not 1" >&2; exit 1; }

# Ctrl-C: in-flight jobs are cancelled, the summary is printed, the status is 130. Jobs stream in,
# so ten million take no more memory than a thousand, and the run stops at once.
"$binary" --jobs 10000000 --seed 1 > "$work/interrupted" 2>&1 &
pid=$!
# Wait until it works (its second progress line), then interrupt it.
for _ in $(seq 1 100); do [ "$(grep -c '^progress:' "$work/interrupted")" -ge 2 ] && break; sleep 0.1; done
resident=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
[ "$resident" -lt 102400 ] || { echo "FAILED: ten million jobs took $resident KB (more than 100 MB)" >&2; exit 1; }
kill -INT "$pid"
interrupted_at=$SECONDS
status=0
wait "$pid" || status=$?
[ "$status" -eq 130 ] || { echo "FAILED: an interrupted run exited with $status, not 130" >&2; exit 1; }
# Within a second on an idle machine; the bound is generous for a loaded one.
[ $((SECONDS - interrupted_at)) -le 5 ] || { echo "FAILED: the run took more than 5 s to stop" >&2; exit 1; }
grep -qE '^  cancelled +[1-9]' "$work/interrupted" \
  || { echo "FAILED: the interrupted run cancelled nothing" >&2; tail "$work/interrupted" >&2; exit 1; }
# SIGTERM stops a run the same way, with the summary, and 143.
"$binary" --jobs 1000000 --seed 1 > "$work/terminated" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '^progress:' "$work/terminated" && break; sleep 0.1; done
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 143 ] || { echo "FAILED: a terminated run exited with $status, not 143" >&2; exit 1; }
grep -qE '^  cancelled +[1-9]' "$work/terminated" \
  || { echo "FAILED: the terminated run printed no summary" >&2; tail "$work/terminated" >&2; exit 1; }
# Issue 42: a failed write to standard output (a full device) is an error: status 1 and one line
# on standard error (it exited 0 having written nothing).
status=0
"$binary" --jobs 20 --seed 1 > /dev/full 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a run writing to a full device exited with $status, not 1" >&2; exit 1; }
grep -q '^error: cannot write to standard output: No space left on device$' "$work/errors" \
  || { echo "FAILED: a failed write was not said" >&2; cat "$work/errors" >&2; exit 1; }
# A thousand clients waiting on a full backlog cost about what sixteen do (each was woken at every
# change of the backlog: 40 s against 1 s).
start=$(date +%s%N)
"$binary" --jobs 3000 --clients 16 --seed 1 > /dev/null 2>&1
few=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
"$binary" --jobs 3000 --clients 1000 --seed 1 > /dev/null 2>&1
many=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$many" -le $((few * 4 + 2000)) ] \
  || { echo "FAILED: 1,000 clients took $many ms against $few ms for 16" >&2; exit 1; }
echo "JobQueue: seeded counts repeat, bad flags and interruption behave"
