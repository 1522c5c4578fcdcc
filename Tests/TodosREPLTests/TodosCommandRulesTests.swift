import Dripper
import DripperTesting
import Testing

@testable import TodosREPL

/// The rules of the commands the feature may refuse, with files in memory: no disk.
@Suite struct TodosCommandRulesTests {
  let milk = Row.State(id: id(1), title: "Milk")

  private func makeStation(
    _ state: Todos.State = Todos.State(), files: MemoryFiles
  ) -> TestStation<Todos.State, Todos.Action> {
    TestStation(initialState: state) {
      Todos()
    } withDependencies: {
      $0.clock = ImmediateClock()
      $0.todoFiles = .memory(files)
    }
  }

  @Test func aSaveWritesTheListAndRemembersTheFile() async {
    let files = MemoryFiles()
    var state = Todos.State()
    state.rows = [milk]
    let station = makeStation(state, files: files)
    await station.pour(.saveCommand(path: "a.json", force: false))
    await station.receive(.finished(.saved(todos: 1, path: "a.json"))) {
      $0.outcome = .saved(todos: 1, path: "a.json")
      $0.knownFiles = ["a.json"]
    }
    await station.finish()
    #expect(files.documents.withLock { $0 } == ["a.json": Document(todos: [milk])])
  }

  @Test func aSaveOverAFileThisSessionDidNotLoadIsRefusedUnlessForced() async {
    let theirs = Document(todos: [Row.State(id: id(9), title: "Theirs")])
    let files = MemoryFiles(["a.json": theirs])
    let station = makeStation(files: files)
    await station.pour(.saveCommand(path: "a.json", force: false))
    await station.receive(.finished(.refused(.unknownFile(path: "a.json")))) {
      $0.outcome = .refused(.unknownFile(path: "a.json"))
    }
    #expect(files.documents.withLock { $0 } == ["a.json": theirs])

    await station.pour(.saveCommand(path: "a.json", force: true)) { $0.outcome = nil }
    await station.receive(.finished(.saved(todos: 0, path: "a.json"))) {
      $0.outcome = .saved(todos: 0, path: "a.json")
      $0.knownFiles = ["a.json"]
    }
    await station.finish()
    #expect(files.documents.withLock { $0 } == ["a.json": Document(todos: [])])
  }

  @Test func aLoadReplacesTheListClosesTheEditorAndRemembersTheFile() async {
    let files = MemoryFiles(["a.json": Document(todos: [milk])])
    var state = Todos.State()
    state.rows = [Row.State(id: id(2), title: "Bread")]
    state.editor = Editor.State(rowID: id(2), draft: "Bre")
    let station = makeStation(state, files: files)
    station.exhaustivity = .off  // the history is not this test's business
    await station.pour(.loadCommand(path: "a.json"))
    await station.receive(.fileLoaded(Document(todos: [milk]), path: "a.json")) {
      $0.rows = [self.milk]
      $0.editor = nil
      $0.knownFiles = ["a.json"]
      $0.outcome = .loaded(todos: 1, path: "a.json")
    }
    await station.finish()
  }

  @Test func aMissingFileIsRefusedWithTheReason() async {
    let station = makeStation(files: MemoryFiles())
    await station.pour(.loadCommand(path: "gone.json"))
    await station.receive(.finished(.refused(.files(PersistenceError("no file at gone.json"))))) {
      $0.outcome = .refused(.files(PersistenceError("no file at gone.json")))
    }
    await station.finish()
  }

  @Test func openingAPathWithNoFileStartsEmptyAndSavesThereWithoutForce() async {
    let files = MemoryFiles()
    let station = makeStation(files: files)
    await station.pour(.openCommand(path: "new.json"))
    await station.receive(.finished(.startedEmpty(path: "new.json"))) {
      $0.outcome = .startedEmpty(path: "new.json")
      $0.knownFiles = ["new.json"]
    }
    // Another program creates the file meanwhile: this session's save still replaces it.
    files.documents.withLock { $0["new.json"] = Document(todos: [self.milk]) }
    await station.pour(.saveCommand(path: "new.json", force: false)) { $0.outcome = nil }
    await station.receive(.finished(.saved(todos: 0, path: "new.json"))) {
      $0.outcome = .saved(todos: 0, path: "new.json")
    }
    await station.finish()
  }

  @Test func undoRedoAndEditingAreRefusedWhenThereIsNothingToDo() async {
    let station = makeStation(files: MemoryFiles())
    await station.pour(.undoCommand) { $0.outcome = .refused(.nothingToUndo) }
    await station.pour(.redoCommand) { $0.outcome = .refused(.nothingToRedo) }
    await station.pour(.editorCommand(.commit)) { $0.outcome = .refused(.nothingBeingEdited) }
    await station.finish()
  }

  @Test func anUndoThatCanBeDoneIsDoneAndSaidSo() async {
    let station = makeStation(files: MemoryFiles())
    station.exhaustivity = .off  // the history is not this test's business
    await station.pour(.add("Milk")) { $0.rows = [Row.State(id: id(0), title: "Milk")] }
    await station.pour(.undoCommand) { $0.outcome = .undone }
    await station.receive(.undo) { $0.rows = [] }
    await station.finish()
  }
}
