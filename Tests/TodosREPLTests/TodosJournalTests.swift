import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

/// `--journal DIR`: the list kept in a durable journal, with no `save`.
@Suite struct TodosJournalTests {
  /// Runs a piped session of `lines` on the journal in `directory`.
  func run(_ lines: [String], journal directory: String) async -> (output: String, errors: String) {
    await runPipedSession(lines, defaultPath: directory + "/export.json", journal: directory)
  }

  func scratch() -> String {
    NSTemporaryDirectory() + "dripper-todos-journal-\(UUID().uuidString)"
  }

  @Test func aJournaledListComesBackWithoutASave() async throws {
    let directory = scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = await run(
      ["add Milk", "add Bread", "toggle 2", "edit 1", "text Oat milk", "commit"], journal: directory)
    #expect(first.errors == "")
    let second = await run(["list"], journal: directory)
    #expect(second.errors == "")
    #expect(
      second.output == """
        resumed the list in \(directory): 10 actions
        1. [ ] Oat milk
        2. [x] Bread
        2 todos, 1 done

        """)
    // A restart keeps the ids: the replay reads them from the journal, not from a generator.
    let ids = try Journal.read(at: directory + "/journal").entries.compactMap { entry -> UUID? in
      guard case .insert(let row) = try Journaling.decode(entry.action) else { return nil }
      return row.id
    }
    #expect(ids.count == 2)
  }

  @Test func leavingAJournaledListWithChangesAsksNothing() async {
    let directory = scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let result = await run(["add Milk", "quit"], journal: directory)
    #expect(!result.output.contains("unsaved"))
  }

  @Test func aJournalAtAFileIsRefusedInOneLine() async throws {
    let path = scratch()
    try "not a folder".write(toFile: path, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = await run(["add Milk"], journal: path)
    #expect(result.errors == "error: cannot use \(path) as a journal: it is not a directory\n")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a folder")
  }

  @Test func everyActionSurvivesItsJournalLine() throws {
    let row = Row.State(id: UUID(102), title: "Milk \"2%\"\nline two")
    let document = Document(todos: [row])
    let actions: [Todos.Action] = [
      .add("Milk"), .insert(row), .rows(.element(id: row.id, action: .toggle)),
      .rows(.element(id: row.id, action: .rename("Oat"))), .remove(row.id), .clearDone, .setFilter(.done),
      .queryChanged("mi"), .searchApplied("mi"), .edit(row.id), .editor(.presented(.set(\.draft, "Draft"))),
      .editor(.presented(.commit)), .editor(.presented(.discard)), .editor(.dismiss), .undo, .redo,
      .saveCommand(path: "a.json", force: true), .loadCommand(path: "a.json"), .openCommand(path: "a.json"),
      .undoCommand, .redoCommand, .editorCommand(.set(\.draft, "Draft")), .editorCommand(.commit),
      .editorCommand(.discard), .fileLoaded(document, path: "a.json"),
      .fileSeen(path: "a.json", stamp: FileStamp("1-2-3.4"), document: document),
      .finished(.saved(todos: 1, path: "a.json")), .finished(.refused(.files(PersistenceError("disk full")))),
    ]
    for action in actions {
      let line = Journaling.encode(action)
      #expect(!line.contains("\n"))
      #expect(try Journaling.decode(line) == action)
    }
    #expect(throws: (any Error).self) { try Journaling.decode("{\"frobnicate\":{}}") }
  }
}
