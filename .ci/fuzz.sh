#!/usr/bin/env bash
# Fuzzes the REPL samples' command and option parsers and TodosREPL's file loader with libFuzzer,
# for FUZZ_SECONDS (default 60) each. Each sample's kept corpus (Tests/Fuzz/<Sample>) seeds the
# run and is replayed by its tests; what the run discovers goes to a temporary directory. A crash
# fails the step and leaves its input in Tests/Fuzz/<Sample>/ to be kept as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
scratch=.build-fuzz
# libFuzzer, not the Swift runtime, must catch a trap, to save the input that caused it.
export SWIFT_BACKTRACE=enable=no

for sample in CounterREPL TodosREPL; do
    swift build --sanitize=fuzzer -Xswiftc -DFUZZING --product "$sample" --scratch-path "$scratch" \
        2>&1 | grep -E "error|warning|Build of product" || true
    fuzzer="$(swift build --sanitize=fuzzer --scratch-path "$scratch" --show-bin-path)/$sample"
    [ -x "$fuzzer" ] || { echo "fuzz: building $sample failed" >&2; exit 1; }
    discovered=$(mktemp -d)
    log=$(mktemp)
    if ! "$fuzzer" "$discovered" "Tests/Fuzz/$sample" -max_total_time="$seconds" -max_len=4096 \
        -timeout=10 -rss_limit_mb=2048 -dict=Tests/Fuzz/edges.dict -artifact_prefix="Tests/Fuzz/$sample/" \
        > "$log" 2>&1; then
        grep -E "Fatal error|ERROR|Test unit written" "$log" >&2 || tail -20 "$log" >&2
        echo "fuzz: $sample broke a rule; the input is in Tests/Fuzz/$sample/ (keep it)" >&2
        exit 1
    fi
    runs=$(grep -Eo '^Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo "?")
    echo "fuzz: $sample: $runs inputs in ${seconds} s, no rule broken"
    rm -rf "$discovered" "$log"
done
