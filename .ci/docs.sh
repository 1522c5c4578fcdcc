#!/usr/bin/env bash
# Builds the DocC catalogs with the toolchain's docc and fails on any warning
# (a broken symbol link, a public symbol missing from a Topics section, ...).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=${1:-.build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift package --scratch-path "$scratch" dump-symbol-graph --minimum-access-level public > "$work/dump.log"
graphs=$(sed -n 's/^Files written to //p' "$work/dump.log")
[ -d "$graphs" ] || { cat "$work/dump.log"; echo "no symbol graphs were written" >&2; exit 1; }

mkdir -p "$work/out"
for module in Dripper DripperTesting DripperDistributed; do
    mkdir -p "$work/graphs/$module"
    cp "$graphs/$module.symbols.json" "$work/graphs/$module/"
    docc convert "Sources/$module/Documentation.docc" \
        --additional-symbol-graph-dir "$work/graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.dripper.$module" \
        --output-dir "$work/out/$module" \
        --warnings-as-errors > "$work/$module.log" 2>&1 \
        || { cat "$work/$module.log"; echo "docc: $module has warnings" >&2; exit 1; }
    # Every top-level public symbol is curated on the landing page (docc
    # would otherwise file it silently under an automatic section).
    python3 - "$work/graphs/$module/$module.symbols.json" "Sources/$module/Documentation.docc/$module.md" <<'PY'
import json, re, sys
graph, landing = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
top = {s["pathComponents"][0] for s in graph["symbols"] if len(s["pathComponents"]) == 1}
curated = {re.sub(r"-[0-9a-z]+$|-\\(.*\\)$", "", link) for link in re.findall(r"^- ``([^`]+)``", landing, re.M)}
missing = sorted(top - curated)
if missing:
    sys.exit(f"docc: {sys.argv[2]} has no Topics entry for: {', '.join(missing)}")
PY
    echo "docc: $module builds with no warnings and curates all its top-level symbols"
done
