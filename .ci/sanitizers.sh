#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer and under AddressSanitizer (with LeakSanitizer), each in
# its own scratch directory so that each configuration builds once, and fails on any report.
# DRIPPER_STRESS_SCALE shrinks the stress tests: the sanitizers make every access several times
# slower, and the interleavings they check do not need 1.28 million pours to appear.
set -euo pipefail
cd "$(dirname "$0")/.."

export DRIPPER_STRESS_SCALE=${DRIPPER_STRESS_SCALE:-0.1}
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 suppressions=$PWD/.ci/tsan.supp"
export ASAN_OPTIONS="detect_leaks=1 strict_init_order=1 detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan.supp print_suppressions=0"

# The load tests (stress, scale and many-threads) run on their own: alongside them, on 2 cores, the
# sanitizers slow every other test's tasks down by seconds. Both runs share one build.
load="StressTests|ScaleTests|ManyThreadsTests"
for sanitizer in thread address; do
    for selection in "--skip $load" "--filter $load"; do
        log=$(mktemp)
        status=0
        # shellcheck disable=SC2086  # the selection is two words
        swift test --sanitize="$sanitizer" --scratch-path ".build-$sanitizer" $selection > "$log" 2>&1 || status=$?
        reports=$(grep -cE "(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)" "$log" || true)
        if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
            grep -E -A30 "(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)" "$log" | head -120 >&2 \
                || { grep -E -A4 "✘|recorded an issue|error:" "$log" | head -60; tail -20 "$log"; } >&2
            echo "sanitizers: swift test --sanitize=$sanitizer $selection: exit $status, $reports reports" >&2
            exit 1
        fi
        echo "sanitizers: swift test --sanitize=$sanitizer $selection:" \
            "$(grep -E 'Test run with' "$log" | tail -1 | sed 's/^[^T]*//')"
        rm -f "$log"
    done
done
