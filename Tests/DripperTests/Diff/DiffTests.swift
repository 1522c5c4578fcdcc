import Observation
import Synchronization
import Testing

@testable import Dripper

@Suite struct DiffTests {
  struct Item: Equatable {
    var id: Int
    var title: String
  }

  struct Screen: Equatable {
    enum Mode: Equatable {
      case viewing
      case editing(draft: String, at: Int)
    }
    var title = "Todos"
    var items: [Item] = [Item(id: 1, title: "Milk"), Item(id: 2, title: "Eggs")]
    var mode = Mode.viewing
    var selection: Int?
  }

  @Test func aNestedValueRendersReadably() {
    let lines = Dump.lines(Screen())
    #expect(
      lines == [
        "DiffTests.Screen(",
        "  title: \"Todos\"",
        "  items: [",
        "    [0]: DiffTests.Item(id: 1, title: \"Milk\")",
        "    [1]: DiffTests.Item(id: 2, title: \"Eggs\")",
        "  ]",
        "  mode: .viewing",
        "  selection: nil",
        ")",
      ])
  }

  @Test func aDiffShowsOnlyWhatChangedWithContext() {
    var new = Screen()
    new.items[1].title = "Oat milk"
    new.mode = .editing(draft: "Oat", at: 1)
    #expect(
      Diff.lines(from: Screen(), to: new) == [
        "  … (2 unchanged)",
        "    items: [",
        "      [0]: DiffTests.Item(id: 1, title: \"Milk\")",
        "-     [1]: DiffTests.Item(id: 2, title: \"Eggs\")",
        "+     [1]: DiffTests.Item(id: 2, title: \"Oat milk\")",
        "    ]",
        "-   mode: .viewing",
        "+   mode: .editing(draft: \"Oat\", at: 1)",
        "    selection: nil",
        "  )",
      ])
    #expect(Diff.lines(from: Screen(), to: Screen()) == nil)
  }

  @Test func setsAndDictionariesRenderInAStableOrder() {
    #expect(Dump.line(Set([3, 1, 2])) == "Set([1, 2, 3])")
    #expect(Dump.line(["b": 2, "a": 1]) == "[\"a\": 1, \"b\": 2]")
  }

  @Test func logChangesPrintsTheActionAndTheDiff() async {
    let log = Recorder<String>()
    let station = Station(initialState: Board.State()) {
      Board().logChanges(to: LogSink { log.append($0) }, label: "board")
    }
    await station.pour(.increase).finish()
    await station.pour(.nothing).finish()
    #expect(
      log.all == [
        """
        [board] received action: .increase
            Board.State(
          -   count: 0
          +   count: 1
              items: []
              label: ""
            )
        """,
        "[board] received action: .nothing\n  (no state change)",
      ])
  }
}
