# Shared by the sample session scripts: source it after `set -euo pipefail`.
# Makes a scratch directory, $work, removed on exit, and defines `check`.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() {  # check NAME EXPECTED-FILE ACTUAL-FILE
  if ! diff -u "$2" "$3"; then
    printf 'FAILED: %s differs from what was expected (diff above)\n' "$1" >&2
    exit 1
  fi
}
