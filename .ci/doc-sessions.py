#!/usr/bin/env python3
"""Runs every ```console block of README.md and of the DocC catalogs as a shell
session, and checks that it prints what the block shows.

Usage: doc-sessions.py REPO BIN

A block is a transcript: a line starting with `$ ` is a command, the lines after
it, up to the next command, are what it prints (standard output and standard
error, as a terminal shows them). The commands of a block run in order in one
shell, started in REPO, so a `cd` holds for the rest of the block; each block
gets a fresh HOME and TMPDIR (removed afterwards), so it touches nothing of the
user's and runs the same way twice. `swift run [-c release] [--package-path P]
NAME` runs BIN/NAME, the binary CI built, instead of building again.

An HTML comment right above a block, invisible when rendered, adjusts the
check: `<!-- session: ignore lines matching: REGEX -->` leaves out, on both
sides, the lines that vary from run to run (times, progress);
`<!-- session: skip: reason -->` does not run the block.
"""

import difflib
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

from snippets import blocks  # the same blocks, under another fence and marker

MARKER = re.compile(r"^<!--\s*session:\s*(.*?)\s*-->\s*$")
SWIFT_RUN = re.compile(r"swift run(?: -c (?:release|debug))?(?: --package-path (?:\"[^\"]*\"|\S+))? (\w[\w-]*)")


def script(block, binaries):
    """The shell script that replays a block: each command echoed as shown, then run."""
    out = ["exec 2>&1"]
    for line in block:
        if line.startswith("$ "):
            command = line[2:]
            out.append(f"printf '%s\\n' {shlex.quote(line)}")
            out.append(SWIFT_RUN.sub(lambda m: shlex.quote(str(binaries / m.group(1))), command))
    return "\n".join(out) + "\n"


def main(repo, binaries):
    repo, binaries = pathlib.Path(repo).resolve(), pathlib.Path(binaries).resolve()
    documents = [repo / "README.md", *sorted(repo.glob("Sources/*/Documentation.docc/*.md"))]
    failures, count = 0, 0
    for document in documents:
        for line, marker, block in blocks(document, "console", MARKER):
            where = f"{document.relative_to(repo)}:{line}"
            ignore = None
            if marker and marker.startswith("skip"):
                print(f"skipped {where}: {marker[4:].strip(' :')}")
                continue
            if marker:
                match = re.match(r"ignore lines matching:\s*(.*)", marker)
                if not match:
                    sys.exit(f"{where}: unknown session marker {marker!r}")
                ignore = re.compile(match.group(1))
            count += 1
            with tempfile.TemporaryDirectory() as scratch:
                home = pathlib.Path(scratch) / "home"
                tmp = pathlib.Path(scratch) / "tmp"
                home.mkdir()
                tmp.mkdir()
                env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8"}
                ran = subprocess.run(
                    ["bash", "-c", script(block, binaries)], cwd=repo, env=env,
                    stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300,
                )
            actual = ran.stdout.decode(errors="replace").splitlines()
            keep = lambda lines: [l for l in lines if not (ignore and ignore.search(l))]
            expected, actual = keep(block), keep(actual)
            if expected != actual:
                failures += 1
                print(f"FAILED: {where}: the session prints something else (- shown, + printed):")
                for diff in difflib.unified_diff(expected, actual, lineterm="", n=2):
                    print("  " + diff)
    print(f"{count} console sessions checked, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(*sys.argv[1:])
