import Dripper
import DripperTesting
import Testing

/// A list of named rows, each renamed by its own action.
private struct Names: Dripper {
  struct Row: Dripper {
    struct State: Equatable, Identifiable, Sendable {
      let id: Int
      var name = ""
    }
    enum Action: Equatable, Sendable { case rename(String) }
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .rename(let name): state.name = name
        }
        return .none
      }
    }
  }

  struct State: Equatable, Sendable { var rows: IdentifiedArrayOf<Row.State> = [] }
  enum Action: Equatable, Sendable { case rows(IdentifiedActionOf<Row>) }

  var body: some DripperOf<Self> {
    EmptyDripper().forEach(\.rows, action: CasePath.rows) { Row() }
  }
}

extension CasePath<Names.Action, IdentifiedActionOf<Names.Row>> {
  fileprivate static var rows: Self {
    Self(Names.Action.rows) { if case .rows(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Names.Row.Action, String> {
  fileprivate static var rename: Self {
    Self(Names.Row.Action.rename) { if case .rename(let a) = $0 { a } else { nil } }
  }
}

/// Issue 60: TCA's `store.send(\.rows[id: 1].rename, "Milk")`, by a case path and a payload.
@Suite struct PourByPathTests {
  @Test func pouringAnElementsActionByItsPath() async {
    let station = TestStation(initialState: Names.State(rows: [.init(id: 1), .init(id: 2)])) { Names() }
    await station.pour(CasePath.rows.appending(.element(id: 1)).appending(.rename), "Milk") {
      $0.rows[id: 1]?.name = "Milk"
    }
    await station.pour(CasePath.rows[id: 2].appending(.rename), "Eggs") {
      $0.rows[id: 2]?.name = "Eggs"
    }
  }
}
