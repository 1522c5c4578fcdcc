import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

@Suite struct TodosSessionTests {
  /// Runs a piped session of `lines` with no default file, returning what it wrote to standard
  /// output and to standard error.
  func run(_ lines: [String]) async -> (output: String, errors: String) {
    let output = Lock("")
    let errors = Lock("")
    let console = Console(
      prompt: "todos> ", isInteractive: false, output: { text in output.withLock { $0 += text } },
      error: { text in errors.withLock { $0 += text } })
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    for line in lines { continuation.yield(line) }
    continuation.finish()
    let session = Session(console: console, defaultPath: .success("/nonexistent/todos.json")) {
      $0.clock = ImmediateClock()
    }
    await session.run(stream)
    return (output.withLock { $0 }, errors.withLock { $0 })
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

        """)
  }
}
