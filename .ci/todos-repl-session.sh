#!/usr/bin/env bash
# Pipes a scripted session through TodosREPL, with a save, a load and a corrupt file, and checks
# its output, errors, exit status and saved file.
set -euo pipefail
binary=$1
# shellcheck source=session-lib.sh
source "$(dirname "$0")/session-lib.sh"

printf '{ this is not a todo list' > "$work/corrupt.json"
cat > "$work/input" <<EOF_INPUT
add Buy milk
add Call mom
toggle 1
edit 2
text Call dad
commit
save
clear-done
load $work/corrupt.json
load $work/missing.json
toggle 7
filter done
undo
load
search mil
wait
frobnicate
EOF_INPUT

status=0
"$binary" --file "$work/todos.json" < "$work/input" > "$work/output" 2> "$work/errors" || status=$?
# Some commands fail (a corrupt file, a missing one, an unknown command): the exit status is 1.
[ "$status" -eq 1 ] || { echo "FAILED: a session with failed commands exited with $status, not 1" >&2; exit 1; }

cat > "$work/expected-output" <<EOF_OUTPUT
no file at $work/todos.json yet: starting with an empty list; 'save' creates it
1. [ ] Buy milk
1 todo, 0 done
1. [ ] Buy milk
2. [ ] Call mom
2 todos, 0 done
1. [x] Buy milk
2. [ ] Call mom
2 todos, 1 done
1. [x] Buy milk
2. [ ] Call mom
2 todos, 1 done
editing 2: "Call mom" (text TITLE, then commit or discard)
1. [x] Buy milk
2. [ ] Call mom
2 todos, 1 done
editing 2: "Call dad" (text TITLE, then commit or discard)
1. [x] Buy milk
2. [ ] Call dad
2 todos, 1 done
saved 2 todos to $work/todos.json
1. [ ] Call dad
1 todo, 0 done
(no todos to show)
1 todo, 0 done · showing done
1. [x] Buy milk
2 todos, 1 done · showing done
undone: "Buy milk" added
loaded 2 todos from $work/todos.json
1. [x] Buy milk
2 todos, 1 done · showing done · search "mil"
EOF_OUTPUT
cat > "$work/expected-errors" <<EOF_ERRORS
error: $work/corrupt.json is not a todo list: the file is not valid JSON
error: no file at $work/missing.json
error: no todo number 7: the list shows 1 to 1
error: unknown command 'frobnicate'; type 'help' for the list
EOF_ERRORS
check "standard output" "$work/expected-output" "$work/output"
check "standard error" "$work/expected-errors" "$work/errors"
grep -q '"title" : "Call dad"' "$work/todos.json" || { echo "FAILED: the saved file lacks the renamed todo" >&2; exit 1; }
ls "$work" | grep -q '\.tmp-' && { echo "FAILED: a temporary file was left behind" >&2; exit 1; }

# A search as the last piped command is not lost: the end of input waits for it; 'filter' alone
# says which filter is on.
printf '%s\n' 'add Apples' 'add Pears' 'filter' 'search pe' | "$binary" > "$work/output" 2> "$work/errors" || true
cat > "$work/expected-output" <<EOF_OUTPUT
1. [ ] Apples
1 todo, 0 done
1. [ ] Apples
2. [ ] Pears
2 todos, 0 done
showing all todos
1. [ ] Pears
2 todos, 0 done · search "pe"
EOF_OUTPUT
check "a search at the end of input" "$work/expected-output" "$work/output"

# Files: no default without HOME; a file this session did not load or create is replaced only with
# --force; saving onto a symbolic link updates its target; errors name the real cause.
echo keep > "$work/other.json"
printf '{"version": 1, "todos": []}' > "$work/target.json"
ln -s target.json "$work/link.json"
status=0
printf '%s\n' 'save' 'add X' "save $work/other.json" "save --force $work/other.json" 'load /dev/null' \
  | env -u HOME "$binary" > "$work/output" 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a session with failed saves exited with $status, not 1" >&2; exit 1; }
printf '%s\n' 'add Y' 'save' | "$binary" --file "$work/link.json" >> "$work/output" 2>> "$work/errors"
cat > "$work/expected-output" <<EOF_OUTPUT
1. [ ] X
1 todo, 0 done
saved 1 todo to $work/other.json
loaded 0 todos from $work/link.json
1. [ ] Y
1 todo, 0 done
saved 1 todo to $work/link.json
EOF_OUTPUT
cat > "$work/expected-errors" <<EOF_ERRORS
error: HOME is not set, so there is no default file: give a path (save PATH), or start with --file PATH
error: $work/other.json exists and this session did not load or create it: 'save --force PATH' replaces it
error: /dev/null is not a regular file (a device, a FIFO or a socket)
EOF_ERRORS
check "file safety output" "$work/expected-output" "$work/output"
check "file safety errors" "$work/expected-errors" "$work/errors"
[ -L "$work/link.json" ] || { echo "FAILED: saving onto a link replaced the link" >&2; exit 1; }
grep -q '"title" : "Y"' "$work/target.json" || { echo "FAILED: saving onto a link did not update its target" >&2; exit 1; }

# Issue 42: a FIFO is neither read (which blocked for ever) nor replaced (which reported success),
# and a private list stays private when it is saved (a save made it 0644).
mkfifo "$work/fifo"
printf '{"version": 1, "todos": []}' > "$work/private.json"
chmod 600 "$work/private.json"
status=0
printf '%s\n' "load $work/fifo" "save --force $work/fifo" \
  | env -u HOME timeout 20 "$binary" > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a session on a FIFO exited with $status, not 1" >&2; exit 1; }
cat > "$work/expected-errors" <<EOF_ERRORS
error: $work/fifo is not a regular file (a device, a FIFO or a socket)
error: cannot write $work/fifo: it is not a regular file, and is not replaced
EOF_ERRORS
check "special file errors" "$work/expected-errors" "$work/errors"
[ -p "$work/fifo" ] || { echo "FAILED: a save replaced a FIFO" >&2; exit 1; }
printf '%s\n' 'add Z' 'save' | "$binary" --file "$work/private.json" > /dev/null 2>&1
[ "$(stat -c %a "$work/private.json")" = 600 ] || { echo "FAILED: a save changed a private list's mode" >&2; exit 1; }

# --journal: every command is on disk once its result shows; kill -9 loses none of them.
mkfifo "$work/journal-input"
"$binary" --journal "$work/journal" < "$work/journal-input" > "$work/journal-output" 2>&1 &
child=$!
exec 3> "$work/journal-input"
printf '%s\n' 'add Milk' 'add Bread' 'toggle 2' >&3
for _ in $(seq 400); do grep -q '^2 todos, 1 done' "$work/journal-output" && break; sleep 0.05; done
kill -9 "$child"
wait "$child" 2> /dev/null || true
exec 3>&-
printf '%s\n' 'list' | "$binary" --journal "$work/journal" > "$work/output" 2>&1
cat > "$work/expected-output" <<EOF_OUTPUT
resumed the list in $work/journal: 5 actions
1. [ ] Milk
2. [x] Bread
2 todos, 1 done
EOF_OUTPUT
check "a journaled list after kill -9" "$work/expected-output" "$work/output"

# Issue 50: on a full disk a journaled session said one error per action (663 lines for 400 adds)
# and kept taking adds it could not record. It says it once, takes no more changes, and exits 1.
# A file-size limit stands in for the full disk: writes past it fail as they do on a full one.
seq 400 | sed 's/^/add item /' > "$work/adds"
status=0
( trap '' XFSZ; ulimit -f 16; "$binary" --journal "$work/full" < "$work/adds" > /dev/null 2> "$work/errors" ) || status=$?
[ "$status" -eq 1 ] || { echo "FAILED: a session on a full disk exited with $status, not 1" >&2; exit 1; }
[ "$(wc -l < "$work/errors")" -eq 1 ] && grep -q 'the journal cannot record, so the session stops taking changes$' "$work/errors" \
  || { echo "FAILED: a full disk was not said once:" >&2; head -5 "$work/errors" >&2; exit 1; }

# Issue 50: the default file (~/.todos.json) a session saved is loaded by the next one, and a piped
# session that ends with changes no save kept says so and exits 1.
status=0
printf '%s\n' 'add Milk' | HOME="$work" "$binary" > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 1 ] && grep -q "^error: the input ended with changes that were not saved" "$work/errors" \
  || { echo "FAILED: a script that ended with unsaved changes exited $status and said nothing" >&2; exit 1; }
printf '%s\n' 'add Milk' 'save' | HOME="$work" "$binary" > /dev/null
printf '%s\n' 'add Eggs' 'save' | HOME="$work" "$binary" > "$work/output"
grep -q "^saved 2 todos to $work/.todos.json$" "$work/output" \
  || { echo "FAILED: the default file was not loaded by the next session:" >&2; cat "$work/output" >&2; exit 1; }

status=0
"$binary" --nope < /dev/null > /dev/null 2> "$work/errors" || status=$?
[ "$status" -eq 2 ] || { echo "FAILED: a bad flag exited with $status, not 2" >&2; exit 1; }
echo "TodosREPL session: output, errors, saved file and exit status as expected"
