#!/usr/bin/env bash
# Pipes a scripted session through CounterREPL and checks its output, errors and exit status.
set -euo pipefail
binary=$1
# shellcheck source=session-lib.sh
source "$(dirname "$0")/session-lib.sh"

printf '%s\n' '+' '+' 'set 10' 'state' 'bogus' '-' '' 'set abc' 'set -9223372036854775808' 'random' 'wait' 'set 25' 'fact' \
  'wait' 'set 100000' 'fact' 'cancel' "$(printf 'x%.0s' $(seq 1 300))" 'quit' '+' > "$work/input"

# Some commands fail: the session goes on, and exits with 1 so that a script can tell.
status=0
"$binary" --seed 7 < "$work/input" > "$work/output" 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a session with failed commands exited with $status, not 1" >&2; exit 1; }
status=0
printf '%s\n' '+' '' 'wait' | "$binary" > /dev/null 2>&1 || status=$?
[ "$status" -eq 0 ] || { echo "FAILED: a session whose commands all succeeded exited with $status" >&2; exit 1; }

cat > "$work/expected-output" <<'OUT'
count: 1
count: 2
count: 10
count: 10
count: 9
count: 9 | random number on its way
count: 39
count: 25
count: 25 | computing a fact about 25!
count: 25 | 25! = 15511210043330985984000000
count: 100000 | 25! = 15511210043330985984000000
count: 100000 | computing a fact about 100000!
count: 100000
OUT
cat > "$work/expected-errors" <<'ERR'
error: unknown command 'bogus'; type 'help' for the list
error: 'set' needs a whole number from -1000000000 to 1000000000, not 'abc'
error: 'set' needs a whole number from -1000000000 to 1000000000, not '-9223372036854775808'
error: line too long (300 characters; at most 200)
ERR
check "standard output" "$work/expected-output" "$work/output"
check "standard error" "$work/expected-errors" "$work/errors"

# A bad flag prints the usage and exits with status 2.
status=0
"$binary" --bogus < /dev/null > "$work/output" 2> "$work/errors" || status=$?
[ "$status" -eq 2 ] || { echo "FAILED: a bad flag exited with $status, not 2" >&2; exit 1; }
printf '%s\n' "error: unknown option '--bogus'" "usage: CounterREPL [--seed N] [--help]" > "$work/expected-errors"
check "bad-flag errors" "$work/expected-errors" "$work/errors"
# Typed at a terminal with the output redirected: no banner, no prompt, no cursor control in the
# file (script(1) gives the REPL a pseudo-terminal for its input).
if command -v script > /dev/null; then
  printf '%s\n' '+' 'quit' | script -qec "'$binary' > '$work/tty-output'" /dev/null > /dev/null 2>&1
  printf '%s\n' 'count: 1' > "$work/expected-output"
  check "output redirected from a terminal session" "$work/expected-output" "$work/tty-output"

  # Typed at a terminal, input and output: a line an effect delivers while the user types is
  # written above the prompt, and the prompt and the typed text are drawn again below it.
  mkfifo "$work/keys"
  script -qec "'$binary'" /dev/null < "$work/keys" > "$work/pty-output" 2>&1 &
  session=$!
  exec 3> "$work/keys"
  appeared() {  # appeared PATTERN: waits, at most 20 s, for PATTERN in the terminal's output
    for _ in $(seq 1 200); do grep -q "$1" "$work/pty-output" && return 0; sleep 0.1; done
    echo "FAILED: '$1' never appeared on the terminal; it showed:" >&2
    cat -v "$work/pty-output" >&2
    exit 1
  }
  appeared 'counter> '
  printf 'set 30000\rfact\r' >&3
  appeared 'computing a fact'
  printf 'se' >&3  # typed while the fact (two seconds of work) is computed
  appeared '30000! has'
  printf 't 1\rquit\r' >&3
  exec 3>&-
  wait "$session" || true
  below=$(tr -d '\r' < "$work/pty-output" | grep -m1 -A1 '30000! has' | tail -1)
  case "$below" in
    "counter> se"*) ;;
    *) echo "FAILED: the typed text was not drawn again below the result; the line was: $below" >&2; exit 1 ;;
  esac
  grep -q '^count: 1' <(tr -d '\r' < "$work/pty-output") \
    || { echo "FAILED: the line typed around the result ('set 1') was not entered whole" >&2; exit 1; }
fi
# Ctrl-C (SIGINT) while a fact is computed cancels it and the session goes on; two in a row at an
# idle prompt leave with 130. Each step waits, at most 10 s, for the line that shows it happened.
wait_for() {  # wait_for PATTERN [N]: until the output has N (default 1) lines matching PATTERN
  for _ in $(seq 1 100); do
    [ "$(grep -c "$1" "$work/int-output" || true)" -ge "${2:-1}" ] && return 0
    sleep 0.1
  done
  echo "FAILED: no line matching '$1' after Ctrl-C; the output was:" >&2
  cat "$work/int-output" >&2
  exit 1
}
rm -f "$work/fifo"
mkfifo "$work/fifo"
"$binary" < "$work/fifo" > "$work/int-output" 2>&1 &
repl=$!
exec 3> "$work/fifo"
printf '%s\n' 'set 100000' 'fact' >&3
wait_for 'computing a fact about 100000'
kill -INT "$repl"
wait_for '^count: 100000$' 2
printf '%s\n' '+' >&3
wait_for '^count: 100001$'
# Two signals sent at once may reach the process as one (POSIX does not queue them): press again,
# a second apart, until it leaves.
status=0
for _ in $(seq 1 10); do
  kill -INT "$repl" 2> /dev/null || break
  sleep 0.2
  kill -INT "$repl" 2> /dev/null || break
  for _ in $(seq 1 10); do kill -0 "$repl" 2> /dev/null || break 2; sleep 0.1; done
done
if kill -0 "$repl" 2> /dev/null; then
  kill -KILL "$repl"
  echo "FAILED: two Ctrl-Cs at an idle prompt did not end CounterREPL within 10 s" >&2
  exit 1
fi
wait "$repl" || status=$?
exec 3>&-
[ "$status" -eq 130 ] || { echo "FAILED: two Ctrl-Cs at an idle prompt exited with $status, not 130" >&2; exit 1; }
printf '%s\n' 'count: 100000' 'count: 100000 | computing a fact about 100000!' 'count: 100000' 'count: 100001' \
  > "$work/expected-output"
check "a session with Ctrl-C" "$work/expected-output" "$work/int-output"
# Issue 42: a failed write to standard output is status 1 and one line on standard error (it exited
# 0 having written nothing); a line of 256 MiB without a newline is read in bounded memory (1 GiB
# grew it to 2.8 GB), and refused as too long.
status=0
printf '+\n' | "$binary" > /dev/full 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a session writing to a full device exited with $status, not 1" >&2; exit 1; }
grep -q '^error: cannot write to standard output: No space left on device$' "$work/errors" \
  || { echo "FAILED: a failed write was not said" >&2; cat "$work/errors" >&2; exit 1; }
status=0
{ head -c $((256 << 20)) /dev/zero | tr '\0' 'a'; printf '\n+\n'; } \
  | /usr/bin/time -f '%M' -o "$work/resident" "$binary" > "$work/output" 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a session with a line too long exited with $status, not 1" >&2; exit 1; }
[ "$(tail -1 "$work/resident")" -lt 65536 ] \
  || { echo "FAILED: a 256 MiB line took $(tail -1 "$work/resident") KB (more than 64 MB)" >&2; exit 1; }
grep -q '^error: line too long' "$work/errors" || { echo "FAILED: the long line was not refused" >&2; exit 1; }
grep -q '^count: 1$' "$work/output" || { echo "FAILED: the line after the long one was lost" >&2; exit 1; }
echo "CounterREPL session: output, errors and exit status as expected"
