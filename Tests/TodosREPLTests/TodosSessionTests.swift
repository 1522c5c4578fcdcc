import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

@Suite struct TodosSessionTests {
  @Test func commandsThatCannotBeDoneNowAreExplained() async {
    let errors = Lock("")
    let console = Console(
      prompt: "todos> ", isInteractive: false, output: { _ in },
      error: { text in errors.withLock { $0 += text } })
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    for line in ["undo", "redo", "text Draft", "commit"] { continuation.yield(line) }
    continuation.finish()
    let session = Session(console: console, defaultPath: .success("/nonexistent/todos.json")) {
      $0.clock = ImmediateClock()
    }
    await session.run(lines)
    #expect(
      errors.withLock { $0 } == """
        error: nothing to undo
        error: nothing to redo
        error: nothing is being edited; use 'edit N' first
        error: nothing is being edited; use 'edit N' first

        """)
  }

  @Test func aScriptedSessionIncludingACorruptLoad() async throws {
    let corrupt = NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString)-corrupt.json"
    try "{ broken".write(toFile: corrupt, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: corrupt) }
    let output = Lock("")
    let errors = Lock("")
    let console = Console(
      prompt: "todos> ", isInteractive: false, output: { text in output.withLock { $0 += text } },
      error: { text in errors.withLock { $0 += text } })
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    for line in ["add Milk", "toggle 1", "load \(corrupt)", "toggle 5", "undo", "list"] {
      continuation.yield(line)
    }
    continuation.finish()
    let session = Session(console: console, defaultPath: .success("/nonexistent/todos.json")) {
      $0.clock = ImmediateClock()
    }
    await session.run(lines)
    #expect(
      output.withLock { $0 } == """
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
      errors.withLock { $0 } == """
        error: \(corrupt) is not a todo list: the file is not valid JSON
        error: no todo number 5: the list shows 1 to 1

        """)
  }
}
