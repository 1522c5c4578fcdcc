#!/usr/bin/env bash
# Pipes a scripted session through CounterREPL and checks its output, errors and exit status.
set -euo pipefail
binary=$1
# shellcheck source=session-lib.sh
source "$(dirname "$0")/session-lib.sh"

printf '%s\n' '+' '+' 'set 10' 'state' 'bogus' '-' '' 'set abc' 'set -9223372036854775808' 'random' 'wait' 'set 25' 'fact' \
  'wait' 'set 100000' 'fact' 'cancel' "$(printf 'x%.0s' $(seq 1 300))" 'quit' '+' > "$work/input"

status=0
"$binary" --seed 7 < "$work/input" > "$work/output" 2> "$work/errors" || status=$?
[ "$status" -eq 0 ] || { echo "FAILED: CounterREPL exited with $status" >&2; exit 1; }

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
fi
echo "CounterREPL session: output, errors and exit status as expected"
