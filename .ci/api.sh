#!/usr/bin/env bash
# Compares the public API of Dripper, DripperTesting and DripperDistributed with the baseline in .ci/api/, using the
# toolchain's swift-api-digester, and fails on any removed or changed declaration. Additions pass.
# After a deliberate change (a new major version), refresh the baseline: bash .ci/api.sh --update
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --target DripperTesting > /dev/null 2>&1 || { swift build --target DripperTesting; exit 1; }
swift build --target DripperDistributed > /dev/null 2>&1 || { swift build --target DripperDistributed; exit 1; }
modules="$(swift build --show-bin-path)/Modules"
triple=$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=0
for module in Dripper DripperTesting DripperDistributed; do
    swift-api-digester -dump-sdk -module "$module" -I "$modules" -target "$triple" -avoid-tool-args \
        -o "$work/$module.json"
    if [ "${1:-}" = "--update" ]; then
        cp "$work/$module.json" ".ci/api/$module.json"
        echo "api: $module baseline updated"
        continue
    fi
    if [ ! -f ".ci/api/$module.json" ]; then
        echo "api: $module has no baseline (.ci/api/$module.json); make one with bash .ci/api.sh --update" >&2
        failed=1
        continue
    fi
    swift-api-digester -diagnose-sdk -module "$module" -baseline-path ".ci/api/$module.json" \
        -input-paths "$work/$module.json" -I "$modules" -target "$triple" > "$work/$module.txt" 2>&1
    # The report is a list of section headers (/* … */); any other line is a break.
    if grep -vE '^\s*$|^/\*.*\*/$' "$work/$module.txt" > "$work/$module.breaks"; then
        echo "api: $module breaks its baseline (.ci/api/$module.json):" >&2
        cat "$work/$module.breaks" >&2
        failed=1
    else
        echo "api: $module keeps its baseline"
    fi
done
exit $failed
