import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

/// Runs a piped session of `lines`, returning what it wrote to standard output and to standard
/// error: with `defaultPath` as its list's file, or its list in the journal in `journal`.
func runPipedSession(
  _ lines: [String], defaultPath: String = "/nonexistent/todos.json", journal: String? = nil,
  loadsAtStart: Session.LoadAtStart = .no
) async -> (output: String, errors: String) {
  let output = Lock("")
  let errors = Lock("")
  let console = Console(
    prompt: "todos> ", isInteractive: false, output: { text in output.withLock { $0 += text } },
    error: { text in errors.withLock { $0 += text } })
  let (stream, continuation) = AsyncStream.makeStream(of: String.self)
  for line in lines { continuation.yield(line) }
  continuation.finish()
  var session = Session(console: console, defaultPath: .success(defaultPath)) {
    $0.clock = ImmediateClock()
  }
  session.journal = journal
  session.loadsAtStart = loadsAtStart
  await session.run(stream)
  return (output.withLock { $0 }, errors.withLock { $0 })
}

@Suite struct TodosSessionTests {
  /// Runs a piped session of `lines` with no default file.
  func run(_ lines: [String]) async -> (output: String, errors: String) {
    await runPipedSession(lines)
  }

  @Test func commandsThatCannotBeDoneNowAreExplained() async {
    let (_, errors) = await run(["undo", "redo", "text Draft", "commit"])
    #expect(
      errors == """
        error: nothing to undo
        error: nothing to redo
        error: nothing is being edited; use 'edit N' first
        error: nothing is being edited; use 'edit N' first

        """)
  }

  @Test func aLongListShowsWhatChangedNotTheWholeListAfterEachCommand() async {
    // Issue 42: a script of n adds printed n²/2 lines (every row after every add).
    for count in [200, 400] {
      let (output, errors) = await run((1...count).map { "add t\($0)" } + ["toggle 30", "remove 2"])
      #expect(errors == unsavedAtTheEnd)
      let lines = output.split(separator: "\n")
      // The whole list while it is short (2 + 3 + … + 21 lines), then two lines an add.
      #expect(lines.count == (2...21).reduce(0, +) + 2 * (count - 20) + 2 + 2)
      #expect(
        lines.suffix(6) == [
          "\(count). [ ] t\(count)", "\(count) todos, 0 done", "30. [x] t30",
          "\(count) todos, 1 done", "removed: \"t2\"", "\(count - 1) todos, 1 done",
        ])
    }
    // A filter shows the whole of what it lets through.
    let (output, _) = await run((1...25).map { "add t\($0)" } + ["toggle 1", "filter done"])
    #expect(output.hasSuffix("1. [x] t1\n25 todos, 1 done · showing done\n"))
  }

  @Test func aScriptedSessionIncludingACorruptLoad() async throws {
    let corrupt = NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString)-corrupt.json"
    try "{ broken".write(toFile: corrupt, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: corrupt) }
    let (output, errors) = await run(["add Milk", "toggle 1", "load \(corrupt)", "toggle 5", "undo", "list"])
    #expect(
      output == """
        1. [ ] Milk
        1 todo, 0 done
        1. [x] Milk
        1 todo, 1 done
        1. [ ] Milk
        1 todo, 0 done
        undone: "Milk" changed
        1. [ ] Milk
        1 todo, 0 done

        """)
    #expect(
      errors == """
        error: \(corrupt) is not a todo list: the file is not valid JSON
        error: no todo number 5: the list shows 1 to 1

        """ + unsavedAtTheEnd)
  }

  /// Runs a typed session: `steps` are lines, or `nil` for a Ctrl-C; returns what it printed and
  /// whether a Ctrl-C asked to leave the program.
  func typed(_ steps: [String?]) async -> (output: String, exited: Bool) {
    let output = Lock("")
    let console = Console(
      prompt: "", isInteractive: true, output: { text in output.withLock { $0 += text } }, error: { _ in })
    let (lines, linesIn) = AsyncStream.makeStream(of: String.self)
    let (interrupts, interruptsIn) = AsyncStream.makeStream(of: Void.self)
    let exited = Lock(false)
    var session = Session(console: console, defaultPath: .success("/nonexistent/todos.json")) {
      $0.clock = ImmediateClock()
    }
    session.interrupts = interrupts
    session.exitOnInterrupt = { exited.withLock { $0 = true } }
    let running = Task { await session.run(lines) }
    for step in steps {
      if let line = step {
        linesIn.yield(line)
      } else {
        interruptsIn.yield()
      }
      // Each step is taken before the next: a Ctrl-C's meaning depends on what came before.
      let before = output.withLock { $0.count }
      for _ in 0..<200 where output.withLock({ $0.count }) == before && !exited.withLock({ $0 }) {
        try? await Task.sleep(for: .milliseconds(5))
      }
    }
    linesIn.finish()
    interruptsIn.finish()
    await running.value
    return (output.withLock { $0 }, exited.withLock { $0 })
  }

  private let warning = "The list has unsaved changes: 'save' keeps them; leave again to drop them."

  /// Issue 42: one Ctrl-C lost a list. Now Ctrl-C clears the line; leaving with unsaved changes
  /// (quit, Ctrl-D, two Ctrl-Cs) warns once and takes a second request.
  @Test func leavingWithUnsavedChangesIsAskedOnce() async {
    let quitTwice = await typed(["add Milk", "quit", "quit"])
    #expect(quitTwice.output.components(separatedBy: warning).count == 2)
    let controlD = await typed(["add Milk", StandardInput.endOfInputLine, StandardInput.endOfInputLine])
    #expect(controlD.output.components(separatedBy: warning).count == 2)
    // Ctrl-C clears the line; twice in a row asks to leave: warned, not gone; twice more leaves.
    let interrupted = await typed(["add Milk", nil, nil, nil, nil])
    #expect(interrupted.output.components(separatedBy: warning).count == 2)
    #expect(interrupted.exited)
    let thrice = await typed(["add Milk", nil, nil, nil])
    #expect(!thrice.exited)
    // Changed again after the warning: warned again.
    let changedAgain = await typed(["add Milk", "quit", "add Eggs", "quit", "quit"])
    #expect(changedAgain.output.components(separatedBy: warning).count == 3)
    // Nothing to lose: it leaves at once.
    let clean = await typed(["list", "quit"])
    #expect(!clean.output.contains(warning))
  }

  /// A script (piped input) is not asked: it leaves at `quit` or the end of its input, and says on
  /// standard error that its changes were not saved (issue 50: it said nothing, and exited 0).
  @Test func aScriptLeavesWithoutBeingAskedAndSaysWhatItLoses() async {
    let (output, errors) = await run(["add Milk", "quit", "add Eggs"])
    #expect(!output.contains(warning))
    #expect(errors == unsavedAtTheEnd)
    #expect(!output.contains("Eggs"))
  }

  /// A script that saves, or changes nothing, ends quietly.
  @Test func aScriptThatSavesEndsQuietly() async throws {
    let path = NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(await runPipedSession(["add Milk", "save"], defaultPath: path).errors == "")
    #expect(await runPipedSession(["list"], defaultPath: path).errors == "")
  }

  /// Issue 50: `save` with no `--file` wrote the default file, and the next session started the
  /// same way did not load it ("(no todos)"), then refused to save over it. The default file is
  /// loaded at start when it exists; a missing one starts an empty list without a word.
  @Test func theDefaultFileIsLoadedAtStartWhenASessionSavedIt() async throws {
    let path = NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = await runPipedSession(["add Milk", "save"], defaultPath: path, loadsAtStart: .ifPresent)
    #expect(first.output.hasPrefix("1. [ ] Milk\n"))
    #expect(first.errors == "")
    let second = await runPipedSession(
      ["list", "add Eggs", "save"], defaultPath: path, loadsAtStart: .ifPresent)
    #expect(second.errors == "")
    #expect(second.output.hasPrefix("1. [ ] Milk\n1 todo, 0 done\nloaded 1 todo from \(path)\n"))
    #expect(second.output.contains("saved 2 todos to \(path)"))
  }
}

/// What a piped session that ends with changes no `save` kept says on standard error.
let unsavedAtTheEnd = "\(unsavedMessage)\n"
private let unsavedMessage =
  "error: the input ended with changes that were not saved: end it with 'save' to keep them"
