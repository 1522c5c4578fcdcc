#!/usr/bin/env bash
# Compiles every ```swift block of README.md and of the DocC catalogs in a
# scratch package that depends on Dripper by path, as a user's package would,
# and runs the blocks that are tests. How blocks are wrapped: .ci/snippets.py.
set -euo pipefail
cd "$(dirname "$0")/.."

package=${1:-.build-snippets}
mkdir -p "$package"
python3 .ci/snippets.py "$PWD" "$package" | tee "$package/snippets.log"

# Manifest fragments: the package they describe must load.
sed -n 's/^manifest [^ ]* //p' "$package/snippets.log" | while read -r folder; do
    swift package --package-path "$folder" describe > /dev/null \
        || { echo "a manifest fragment does not load: $folder/Package.swift" >&2; exit 1; }
done

swift build --package-path "$package" --build-tests
swift test --package-path "$package" --skip-build
