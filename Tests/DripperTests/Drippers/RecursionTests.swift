import Testing

@testable import Dripper

/// TCA's Recursion case study: a row whose children are rows, through `forEach` and `ifLet`.
struct Nested: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var name = ""
    var rows: IdentifiedArrayOf<State> = []
    var detail: Detail?

    /// A chain of `depth` rows, each the only child of the one above.
    static func chain(depth: Int) -> State {
      var state = State(id: depth - 1)
      for level in stride(from: depth - 2, through: 0, by: -1) {
        var parent = State(id: level)
        parent.rows.append(state)
        state = parent
      }
      return state
    }
  }

  /// A detail that holds nested rows of its own.
  struct Detail: Equatable, Sendable {
    var rows: IdentifiedArrayOf<State>
  }

  indirect enum Action: Equatable, Sendable {
    case rename(String)
    case addRow(Int)
    case rows(IdentifiedActionOf<Nested>)
    case openDetail
    case detail(Action)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .rename(let name):
        state.name = name
        return .none
      case .addRow(let id):
        state.rows.append(State(id: id))
        return .none
      case .openDetail:
        state.detail = Detail(rows: [State(id: -1)])
        return .none
      case .rows, .detail:
        return .none
      }
    }
    .forEach(\.rows, action: .rows) { Nested() }
    .ifLet(\.detail, action: .detail) {
      EmptyDripper<Detail, Action>().forEach(\.rows, action: .rows) { Nested() }
    }
  }

  /// The action that renames the row at the bottom of a chain of `depth` rows.
  static func renameBottom(of depth: Int, to name: String) -> Action {
    var action = Action.rename(name)
    for level in stride(from: depth - 1, through: 1, by: -1) {
      action = .rows(.element(id: level, action: action))
    }
    return action
  }
}

extension CasePath<Nested.Action, IdentifiedActionOf<Nested>> {
  static var rows: Self {
    Self(Nested.Action.rows) { if case .rows(let action) = $0 { action } else { nil } }
  }
}

extension CasePath<Nested.Action, Nested.Action> {
  static var detail: Self {
    Self(Nested.Action.detail) { if case .detail(let action) = $0 { action } else { nil } }
  }
}

/// A feature may contain itself: each child's reduction is built when it is first needed, and
/// only once (issue 41: the Station overflowed the stack as it started, building every level).
@Suite struct RecursionTests {
  @Test func aFeatureContainingItselfStarts() async {
    let station = Station(initialState: Nested.State(id: 0)) { Nested() }
    await station.pour(.addRow(1)).finish()
    await station.pour(.rows(.element(id: 1, action: .addRow(2)))).finish()
    await station.pour(.rows(.element(id: 1, action: .rows(.element(id: 2, action: .rename("deep"))))))
      .finish()
    await station.pour(.openDetail).finish()
    await station.pour(.detail(.rows(.element(id: -1, action: .rename("detail"))))).finish()
    let state = await station.state
    #expect(state.rows[id: 1]?.rows[id: 2]?.name == "deep")
    #expect(state.detail?.rows[id: -1]?.name == "detail")
  }

  @Test func aChainAThousandRowsDeepReducesAtTheBottom() async {
    // A tenth under the sanitizers (DRIPPER_STRESS_SCALE=0.1), whose instrumented frames are
    // several times larger: a thousand levels overflow the stack of the pool's threads under
    // AddressSanitizer, which is not what that run checks.
    let depth = max(100, scaled(1_000))
    let station = Station(initialState: Nested.State.chain(depth: depth)) { Nested() }
    await station.pour(Nested.renameBottom(of: depth, to: "bottom")).finish()
    await station.pour(Nested.renameBottom(of: depth, to: "again")).finish()
    var row = await station.state
    for level in 1..<depth { row = row.rows[id: level]! }
    #expect(row.name == "again")
  }
}
