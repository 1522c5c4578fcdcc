import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

/// Ids the way the test dependencies make them: 0, 1, 2…
func id(_ number: UInt64) -> UUID { UUID(number) }

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
    await station.pour(.add("Milk"))
    await station.receive(.insert(Row.State(id: id(0), title: "Milk"))) {
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
    state.$filter.withLock { $0 = .active }
    #expect(state.visible.map(\.title) == ["Mint"])
    state.$filter.withLock { $0 = .done }
    state.search = ""
    #expect(state.visible.map(\.title) == ["Milk"])
  }

  @Test func undoAndRedoReplayTheList() async {
    let (station, _) = makeStation()
    await station.pour(.add("A"))
    await station.receive(.insert(Row.State(id: id(0), title: "A"))) {
      $0.rows = [Row.State(id: id(0), title: "A")]
      $0.history.record([])
    }
    await station.pour(.add("B"))
    await station.receive(.insert(Row.State(id: id(1), title: "B"))) {
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
