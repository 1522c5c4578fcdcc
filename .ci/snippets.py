#!/usr/bin/env python3
"""Writes a scratch package that compiles every ```swift block of README.md
and of both DocC catalogs, as a user would write it.

Usage: snippets.py REPO OUT

Each document becomes one module, `Snippets_<name>`, that depends on Dripper
and DripperTesting by path; its blocks are compiled in order, in one file, so a
later block may use what an earlier one declared. Compiler errors name the
document and its line (`#sourceLocation`).

A block is compiled as it stands unless an HTML comment right above it says
otherwise (`<!-- snippet: KIND; key: value -->`, invisible when rendered):

    (none)          Declarations stay at file scope; the statements that
                    follow them (`let station = …`, `await …`) are wrapped in a
                    function that is compiled, never called. A block with an
                    `@Test` goes to the document's test target and runs.
    in TYPE         Code written inside TYPE's reducer: `case` lines are
                    wrapped in `switch action`, other lines in a function of
                    (inout State, Action) -> Effect<Action>.
    body in TYPE    Reducers as in a `body`, wrapped in a property of TYPE.
    member in TYPE  Members of a dripper with TYPE's State and Action (its
                    `body`, say), wrapped in a dripper nested in TYPE.
    test            Statements of a test, wrapped in an `@Test` function that
                    runs; `before:` gives the setup the text leaves out.
    apple           Compiled only where SwiftUI exists (not on Linux).
    manifest        Lines of a Package.swift: checked with `dump-package`.
    skip            Not code to compile; the reason follows.

Glue the text leaves out (a client, a child feature, case paths) lives in
.ci/snippets/<name>.swift, copied into the module, with any <name>+<part>.swift (a
link to glue that several documents share, in .ci/snippets/shared).
"""

import pathlib
import re
import shutil
import sys

DECLARATION = re.compile(
    r"^(import|struct|enum|extension|final|class|actor|protocol|func|typealias"
    r"|public|private|fileprivate|internal|package|nonisolated|#if|#else|#endif)\b|^@"
)
MARKER = re.compile(r"^<!--\s*snippet:\s*(.*?)\s*-->\s*$")


def blocks(path, language="swift", marker_pattern=MARKER):
    """Yields (line of the first code line, marker text or None, code lines) for each block of
    `language`; the marker is the HTML comment right above the block (.ci/doc-sessions.py uses
    this with its own)."""
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```" + language:
            marker = None
            back = index - 1
            while back >= 0 and not lines[back].strip():
                back -= 1
            if back >= 0 and marker_pattern.match(lines[back].strip()):
                marker = marker_pattern.match(lines[back].strip()).group(1)
            end = index + 1
            while lines[end].strip() != "```":
                end += 1
            yield index + 2, marker, lines[index + 1 : end]
            index = end
        index += 1


def parse(marker):
    """'body in Foo; before: x' -> ('body', 'Foo', {'before': 'x'})."""
    if marker is None:
        return "file", None, {}
    parts = [part.strip() for part in marker.split(";")]
    head, options = parts[0], {}
    for part in parts[1:]:
        key, _, value = part.partition(":")
        options[key.strip()] = value.strip()
    words = head.split()
    words[0] = words[0].rstrip(":")
    if words[0] == "in":
        return "in", words[1], options
    if words[1:2] == ["in"]:
        return words[0], words[2], options
    if words[0] == "skip":
        return "skip", head[4:].strip(" :"), options
    return words[0], None, options


def split_items(code):
    """Splits file-scope code into declarations and the statements after them."""
    declarations, statements, pending = [], [], []
    current = None
    for line in code:
        starts = line and not line[0].isspace() and not line.startswith("}")
        if starts and line.startswith("//"):
            pending.append(line)
            continue
        if starts:
            current = declarations if DECLARATION.match(line) else statements
        target = current if current is not None else declarations
        target.extend(pending)
        pending = []
        target.append(line)
    (current if current is not None else declarations).extend(pending)
    return declarations, statements


def located(doc, line, code):
    return [f'#sourceLocation(file: "{doc}", line: {line})', *code, "#sourceLocation()"]


def main(repo, out):
    repo, out = pathlib.Path(repo).resolve(), pathlib.Path(out)
    documents = [repo / "README.md"]
    for catalog in sorted(repo.glob("Sources/*/Documentation.docc")):
        documents += sorted(catalog.glob("*.md"))

    sources = out / "Sources"
    if sources.exists():
        shutil.rmtree(sources)
    modules, tests, manifests, skipped, counter = [], [], [], [], 0

    for document in documents:
        name = "Snippets_" + re.sub(r"\W", "", document.stem)
        doc = str(document.relative_to(repo))
        body, test_body = ["import Dripper", "import DripperTesting"], []
        for line, marker, code in blocks(document):
            counter += 1
            kind, type_name, options = parse(marker)
            function = f"snippet{counter}"
            if kind == "skip":
                skipped.append(f"{doc}:{line}: {type_name or 'no reason given'}")
            elif kind == "manifest":
                manifests.append((doc, line, code))
            elif kind == "file" and any(l.lstrip().startswith("@Test") for l in code):
                test_body += located(doc, line, code)
            elif kind == "file":
                declarations, statements = split_items(code)
                body += located(doc, line, declarations)
                if statements:
                    body += [f"func {function}() async throws {{"]
                    body += located(doc, line + code.index(statements[0]), statements)
                    body += ["}"]
            elif kind == "in":
                wrapped = [f"extension {type_name} {{"]
                wrapped += [f"  func {function}(state: inout State, action: Action) -> Effect<Action> {{"]
                if code[0].startswith("case "):
                    # Line control may not stand between cases: it goes around the switch.
                    wrapped += located(doc, line - 1, ["switch action {", *code])[:-1]
                    wrapped += ["default: return .none", "}", "#sourceLocation()"]
                else:
                    wrapped += located(doc, line, code)
                body += wrapped + ["  }", "}"]
            elif kind == "body":
                body += [f"extension {type_name} {{", f"  @DripperBuilder<State, Action> var {function}: some DripperOf<Self> {{"]
                body += located(doc, line, code) + ["  }", "}"]
            elif kind == "member":
                body += [f"extension {type_name} {{", f"  struct Snippet{counter}: Dripper {{"]
                body += ["    typealias State = " + type_name + ".State", "    typealias Action = " + type_name + ".Action"]
                body += located(doc, line, code) + ["  }", "}"]
            elif kind == "test":
                test_body += [f"@Test func {function}() async throws {{", options.get("before", "")]
                test_body += located(doc, line, code) + ["}"]
            elif kind == "apple":
                body += ["#if canImport(SwiftUI)", "import SwiftUI", *located(doc, line, code), "#endif"]
            else:
                sys.exit(f"{doc}:{line}: unknown snippet kind {kind!r}")

        (sources / name).mkdir(parents=True)
        (sources / name / "Snippets.swift").write_text("\n".join(body) + "\n")
        glue_folder = repo / ".ci" / "snippets"
        for glue in [glue_folder / f"{document.stem}.swift", *sorted(glue_folder.glob(f"{document.stem}+*.swift"))]:
            if glue.exists():
                shutil.copy(glue, sources / name / ("Glue" + glue.stem[len(document.stem):] + ".swift"))
        modules.append(name)
        if len(test_body) > 0:
            (sources / (name + "Tests")).mkdir(parents=True)
            header = ["import DripperTesting", "import Testing", f"@testable import {name}"]
            (sources / (name + "Tests") / "Snippets.swift").write_text("\n".join(header + test_body) + "\n")
            tests.append(name)

    dependencies = (
        '.product(name: "Dripper", package: "Dripper"), .product(name: "DripperTesting", package: "Dripper"), '
        '.product(name: "DripperDistributed", package: "Dripper")'
    )
    targets = [f'    .target(name: "{m}", dependencies: [{dependencies}], path: "Sources/{m}"),' for m in modules]
    targets += [
        f'    .testTarget(name: "{m}Tests", dependencies: ["{m}", {dependencies}], path: "Sources/{m}Tests"),'
        for m in tests
    ]
    (out / "Package.swift").write_text(
        "// swift-tools-version: 6.0\n"
        "import PackageDescription\n\n"
        'let package = Package(\n  name: "Snippets",\n'
        '  platforms: [.macOS(.v15), .iOS(.v18)],\n'
        f'  dependencies: [.package(name: "Dripper", path: "{repo}")],\n'
        "  targets: [\n" + "\n".join(targets) + "\n  ]\n)\n"
    )

    # A manifest fragment goes into a package of its own, beside a link named
    # as the text names the package's folder.
    for index, (doc, line, code) in enumerate(manifests):
        folder = out / "Manifests" / f"m{index}"
        if folder.exists():
            shutil.rmtree(folder)
        (folder / "App" / "Sources" / "App").mkdir(parents=True)
        (folder / "App" / "Sources" / "AppTests").mkdir(parents=True)
        (folder / "App" / "Sources" / "App" / "App.swift").write_text("")
        (folder / "App" / "Sources" / "AppTests" / "AppTests.swift").write_text("")
        (folder / "Dripper").symlink_to(repo)
        dependencies = [l.rstrip(",") for l in code if l.startswith(".package")]
        targets = [l.rstrip(",") for l in code if l.startswith((".target", ".testTarget"))]
        (folder / "App" / "Package.swift").write_text(
            "// swift-tools-version: 6.0\nimport PackageDescription\n\n"
            'let package = Package(\n  name: "App",\n  platforms: [.macOS(.v15), .iOS(.v18)],\n'
            f"  dependencies: [{', '.join(dependencies)}],\n"
            f"  targets: [\n    {(',' + chr(10) + '    ').join(targets)}\n  ]\n)\n"
        )
        print(f"manifest {doc}:{line} {folder / 'App'}")

    for reason in skipped:
        print(f"skipped {reason}")
    print(f"{counter} blocks in {len(documents)} documents; {len(tests)} with tests")


if __name__ == "__main__":
    main(*sys.argv[1:])
