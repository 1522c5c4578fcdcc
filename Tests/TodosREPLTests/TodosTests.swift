import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

/// Ids the way the test dependencies make them: 0, 1, 2…
func id(_ number: UInt64) -> UniqueID { UniqueID(high: 0, low: number) }

func makeStation(_ state: Todos.State = Todos.State()) -> (TestStation<Todos.State, Todos.Action>, TestClock)
{
  let clock = TestClock()
  let station = TestStation(initialState: state) {
    Todos()
  } withDependencies: {
    $0.clock = clock
  }
  return (station, clock)
}

@Suite struct TodosTests {
  @Test func rowsAreAddedToggledAndRenamedThroughForEach() async {
    let (station, _) = makeStation()
    await station.pour(.add("Milk")) {
      $0.history.record($0.rows)
      $0.rows = [Row.State(id: id(0), title: "Milk")]
    }
    await station.pour(.rows(.element(id: id(0), action: .toggle))) {
      $0.history.record($0.rows)
      $0.rows[id: id(0)]?.isDone = true
    }
    await station.pour(.rows(.element(id: id(0), action: .rename("Oat milk")))) {
      $0.history.record($0.rows)
      $0.rows[id: id(0)]?.title = "Oat milk"
    }
    await station.finish()
  }

  @Test func theEditorCommitsItsDraftToTheRow() async {
    var state = Todos.State()
    state.rows = [Row.State(id: id(7), title: "Mom")]
    let (station, _) = makeStation(state)
    station.exhaustivity = .off  // the history is not this test's business
    await station.pour(.edit(id(7))) { $0.editor = Editor.State(rowID: id(7), draft: "Mom") }
    await station.pour(.editor(.presented(.set(\.draft, "Dad")))) { $0.editor?.draft = "Dad" }
    await station.pour(.editor(.presented(.commit))) {
      $0.editor = nil
      $0.rows[id: id(7)]?.title = "Dad"
    }
    await station.finish()
  }

  @Test func theEditorDismissesItselfOnDiscard() async {
    var state = Todos.State()
    state.rows = [Row.State(id: id(7), title: "Mom")]
    let (station, _) = makeStation(state)
    await station.pour(.edit(id(7))) { $0.editor = Editor.State(rowID: id(7), draft: "Mom") }
    await station.pour(.editor(.presented(.set(\.draft, "Dad")))) { $0.editor?.draft = "Dad" }
    await station.pour(.editor(.presented(.discard)))
    await station.receive(.editor(.dismiss)) { $0.editor = nil }
    await station.finish()
  }

  @Test func theSearchWaitsForTypingToPause() async {
    let (station, clock) = makeStation()
    await station.pour(.queryChanged("m")) { $0.query = "m" }
    await clock.advance(by: .milliseconds(100))
    await station.pour(.queryChanged("mi")) { $0.query = "mi" }
    await clock.advance(by: Todos.searchDelay)
    await station.receive(.searchApplied("mi")) { $0.search = "mi" }
    await station.finish()
  }

  @Test func filtersAndTheSearchChooseTheVisibleRows() {
    var state = Todos.State()
    state.rows = [
      Row.State(id: id(0), title: "Milk", isDone: true), Row.State(id: id(1), title: "Mint"),
      Row.State(id: id(2), title: "Eggs"),
    ]
    state.search = "mi"
    #expect(state.visible.map(\.title) == ["Milk", "Mint"])
    state.filter = .active
    #expect(state.visible.map(\.title) == ["Mint"])
    state.filter = .done
    state.search = ""
    #expect(state.visible.map(\.title) == ["Milk"])
  }

  @Test func undoAndRedoReplayTheList() async {
    let (station, _) = makeStation()
    await station.pour(.add("A")) {
      $0.rows = [Row.State(id: id(0), title: "A")]
      $0.history.record([])
    }
    await station.pour(.add("B")) {
      $0.history.record($0.rows)
      $0.rows.append(Row.State(id: id(1), title: "B"))
    }
    await station.pour(.undo) { _ = $0.history.undo(&$0.rows) }
    #expect(station.state.rows.map(\.title) == ["A"])
    await station.pour(.redo) { _ = $0.history.redo(&$0.rows) }
    #expect(station.state.rows.map(\.title) == ["A", "B"])
    await station.finish()
  }

  @Test func theHistoryKeepsItsLimit() {
    var history = History<Int>(limit: 3)
    for value in 0..<10 { history.record(value) }
    #expect(history.past == [7, 8, 9])
    var current = 10
    let undid = history.undo(&current)
    #expect(undid)
    #expect(current == 9)
    history.record(42)
    #expect(!history.canRedo)
  }
}

@Suite struct PersistenceTests {
  private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString)-\(name)"
  }

  @Test func aSavedListLoadsBack() throws {
    let path = temporaryPath("list.json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let document = Document(todos: [Row.State(id: id(1), title: "Milk", isDone: true)])
    try Persistence.save(document, to: path).get()
    #expect(try Persistence.load(from: path).get() == document)
    // The write went through a temporary file, which is gone.
    let directory = (path as NSString).deletingLastPathComponent
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix((path as NSString).lastPathComponent + ".tmp") }
    #expect(leftovers.isEmpty)
  }

  /// Before, a loaded title printed raw: this file cleared the screen and renamed the terminal.
  @Test func titlesFromAFileCannotDriveTheTerminal() throws {
    let json =
      #"{"version": 1, "todos": [{"id": "00000000-0000-0000-0000-000000000001", "title": "\u001B]0;owned\u0007\u001B[2Jmilk\nforged line", "isDone": true}]}"#
    let document = try Persistence.decode(Data(json.utf8), from: "crafted.json").get()
    let state = Todos.State(rows: IdentifiedArray(document.todos))
    for colors in [false, true] {
      let shown = Rendering.view(of: state, colors: colors)
      #expect(shown.contains(#"\u{1B}]0;owned\u{07}\u{1B}[2Jmilk\nforged line"#))
      #expect(!shown.contains("\u{07}") && !shown.contains("\u{1B}]") && !shown.contains("\u{1B}[2J"))
      #expect(shown.split(separator: "\n").count == 2)
    }
    #expect(InputInvariants.renderingViolations(of: document).isEmpty)
  }

  /// Before, with HOME unset the list went to the current directory.
  @Test func withoutHomeThereIsNoDefaultFile() throws {
    #expect(throws: PersistenceError.self) { try Persistence.defaultPath(environment: [:]).get() }
    #expect(try Persistence.defaultPath(environment: ["HOME": "/home/a"]).get() == "/home/a/.todos.json")
  }

  /// Before, saving onto a link replaced the link with a file and left its target as it was.
  @Test func savingOntoALinkUpdatesItsTarget() throws {
    let target = temporaryPath("target.json")
    let link = temporaryPath("link.json")
    defer {
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.removeItem(atPath: link)
    }
    try Persistence.save(Document(todos: []), to: target).get()
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let document = Document(todos: [Row.State(id: id(1), title: "Milk", isDone: false)])
    try Persistence.save(document, to: link).get()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    #expect(try Persistence.load(from: target).get() == document)
  }

  /// Before, `load /dev/null` said "permission denied or unreadable".
  @Test func errorsNameTheRealCause() {
    #expect(
      Persistence.load(from: "/dev/null")
        == .failure(PersistenceError("/dev/null is not a todo list: the file is not valid JSON")))
  }

  @Test func aMissingFileIsOneLine() {
    let path = temporaryPath("missing.json")
    #expect(Persistence.load(from: path) == .failure(PersistenceError("no file at \(path)")))
  }

  @Test(arguments: [
    ("not json at all", "the file is not valid JSON"),
    ("{\"version\": 1}", "missing 'todos'"),
    (
      "{\"version\": 1, \"todos\": [{\"id\": \"nope\", \"title\": \"x\", \"isDone\": false}]}",
      "bad value at todos.[0].id"
    ),
    (
      "{\"version\": 1, \"todos\": [{\"id\": 3, \"title\": \"x\", \"isDone\": false}]}",
      "wrong type at todos.[0].id"
    ),
  ])
  func aCorruptFileIsOneLine(contents: String, reason: String) throws {
    let path = temporaryPath("corrupt.json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try contents.write(toFile: path, atomically: false, encoding: .utf8)
    #expect(
      Persistence.load(from: path) == .failure(PersistenceError("\(path) is not a todo list: \(reason)")))
  }

  @Test func aLaterVersionIsRefused() throws {
    let path = temporaryPath("v2.json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try "{\"version\": 2, \"todos\": []}".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(
      Persistence.load(from: path)
        == .failure(PersistenceError("\(path) is a todo list of version 2; this program reads version 1")))
  }

  @Test func aDirectoryIsNotAList() throws {
    let path = temporaryPath("directory")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(Persistence.load(from: path) == .failure(PersistenceError("\(path) is a directory")))
  }

  @Test func twoTodosWithOneIDAreRefused() {
    let row = #"{"id": "6F9619FF-8B86-4011-B42D-00C04FC964FF", "title": "A", "isDone": false}"#
    let data = Data(#"{"version": 1, "todos": [\#(row), \#(row)]}"#.utf8)
    #expect(
      Persistence.decode(data, from: "list.json")
        == .failure(PersistenceError("list.json is not a todo list: two todos share an id")))
  }

  @Test func savingIntoAMissingDirectoryFailsInOneLine() {
    let path = temporaryPath("no-such-directory") + "/list.json"
    guard case .failure(let error) = Persistence.save(Document(todos: []), to: path) else {
      Issue.record("saving into a missing directory succeeded")
      return
    }
    #expect(error == PersistenceError("cannot write \(path): No such file or directory"))
  }
}

@Suite struct TodosCommandTests {
  @Test(arguments: [
    ("add Buy milk", Command.add("Buy milk")), ("toggle 2", .toggle(2)),
    ("rename 1 Oat milk", .rename(1, "Oat milk")),
    ("remove 3", .remove(3)), ("edit 1", .edit(1)), ("text New title", .text("New title")),
    ("commit", .commit),
    ("discard", .discard), ("clear-done", .clearDone), ("filter done", .filter(.done)),
    ("search mi", .search("mi")),
    ("search", .search("")), ("undo", .undo), ("redo", .redo), ("list", .list), ("save", .save(nil)),
    ("save /tmp/x.json", .save("/tmp/x.json")), ("load", .load(nil)), ("wait", .wait), ("quit", .quit),
    ("save --force", .forceSave(nil)), ("save --force /tmp/x.json", .forceSave("/tmp/x.json")),
    ("filter", .showFilter),
  ])
  func commandsParse(line: String, command: Command) throws {
    #expect(try Command.parse(line).get() == command)
  }

  @Test(arguments: [
    ("", "empty command; type 'help' for the list"),
    ("add", "'add' needs a title"),
    ("toggle", "'toggle' takes one number, as in 'toggle 2'"),
    ("toggle x", "'toggle' needs the number of a todo in the list, not 'x'"),
    ("toggle 0", "'toggle' needs the number of a todo in the list, not '0'"),
    ("rename 2", "'rename' needs a title"),
    ("rename", "'rename' takes a number and a title, as in 'rename 2 Buy oat milk'"),
    ("filter later", "'filter' takes all, active or done, not 'later'"),
    ("undo now", "'undo' takes no arguments"),
    ("frobnicate", "unknown command 'frobnicate'; type 'help' for the list"),
  ])
  func badLinesAreExplainedInOneLine(line: String, message: String) {
    #expect(Command.parse(line) == .failure(CommandError(message)))
  }

  @Test func optionsParseAndBadOnesAreExplained() {
    #expect(Options.parse(["--file", "list.json"]) == .success(Options(file: "list.json")))
    #expect(Options.parse(["--file"]) == .failure(CommandError("'--file' needs a path")))
    #expect(Options.parse(["--fil\u{1B}e"]) == .failure(CommandError(#"unknown option '--fil\u{1B}e'"#)))
  }
}

@Suite struct TodosSettingsTests {
  @Test func theFilterIsSharedBetweenStationsShowingTheList() async {
    let settings = SharedValue(Todos.Filter.all)
    let first = Station(initialState: Todos.State()) { Todos(settings: settings) }
    let second = Station(initialState: Todos.State()) { Todos(settings: settings) }
    first.share(\.filter, with: settings, action: .filterShared)
    second.share(\.filter, with: settings, action: .filterShared)
    await first.pour(.setFilter(.done)).finish()
    #expect(await second.state.filter == .done)
  }

  @Test func theFilterIsKeptNextToTheListForTheNextSession() async throws {
    let list = NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString).json"
    let settingsFile = String(list.dropLast(5)) + ".settings.json"
    defer { try? FileManager.default.removeItem(atPath: settingsFile) }
    func session(_ commands: [String]) async -> String {
      let output = Lock("")
      let console = Console(
        prompt: "todos> ", isInteractive: false, output: { text in output.withLock { $0 += text } },
        error: { _ in })
      let (lines, continuation) = AsyncStream.makeStream(of: String.self)
      for command in commands { continuation.yield(command) }
      continuation.finish()
      await Session(console: console, defaultPath: .success(list)) { $0.clock = ImmediateClock() }.run(lines)
      return output.withLock { $0 }
    }
    _ = await session(["filter done"])
    let next = await session(["filter"])
    #expect(next.hasSuffix("showing done todos\n"))
  }
}

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
