// What ComposingFeatures.md's snippets leave out: the parent, its children,
// a Station and an id. Compiled with them by .ci/docs-snippets.sh.
import Dripper

struct Counter: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Sendable { case increase }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Row: Dripper {
  struct State: Equatable, Identifiable, Sendable { var id: Int }
  enum Action: Sendable { case toggle }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct AppFeature: Dripper {
  struct State: Equatable, Sendable {
    var counter = Counter.State()
    var rows: IdentifiedArrayOf<Row.State> = []
  }
  enum Action: Sendable {
    case counter(Counter.Action)
    case rows(IdentifiedAction<Row.State.ID, Row.Action>)
  }
  var body: some DripperOf<Self> { EmptyDripper() }
}

extension CasePath<AppFeature.Action, IdentifiedAction<Row.State.ID, Row.Action>> {
  static var rows: Self { Self(AppFeature.Action.rows) { if case .rows(let a) = $0 { a } else { nil } } }
}

let station = Station(initialState: AppFeature.State()) { AppFeature() }
let id = 1
