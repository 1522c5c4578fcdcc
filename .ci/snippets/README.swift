// What README.md's snippets leave out: the children, clients and identifiers
// they name. Compiled with them by .ci/docs-snippets.sh.
import Dripper

struct Item: Equatable, Sendable { var name: String }
func liveFetch() async throws -> [Item] { [] }

struct Editor: Dripper {
  struct State: Equatable, Sendable { var title = "" }
  enum Action: Sendable { case saveTapped }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Row: Dripper {
  struct State: Equatable, Identifiable, Sendable { var id: Int }
  enum Action: Sendable { case toggle }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct SearchID: Hashable, Sendable {}
struct TimerID: Hashable, Sendable {}
struct UploadID: Hashable, Sendable {}
struct SensorID: Hashable, Sendable {}

struct SearchClient: Sendable {
  func search(_ query: String) async throws -> [String] { [query] }
}

struct Search: Dripper {
  struct State: Equatable, Sendable { var query = "" }
  enum Action: Sendable { case searchChanged(String), results([String]), stopTapped }
  @Dependency(\.clock) var clock
  let api = SearchClient()
  var body: some DripperOf<Self> { Drip { state, action in snippet3(state: &state, action: action) } }
}

struct Uploads: Dripper {
  struct State: Equatable, Sendable {}
  enum Action: Sendable { case upload }
  struct Uploader: Sendable { func upload(_ file: String) async throws {} }
  let uploader = Uploader()
  let file = "report.pdf"
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Sensors: Dripper {
  struct State: Equatable, Sendable {}
  enum Action: Sendable { case startListening, stopListening, reading(Double) }
  struct Sensor: Sendable { var readings: AsyncStream<Double> { AsyncStream { $0.finish() } } }
  let sensor = Sensor()
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Todo: Equatable, Sendable { var isDone = false }
struct Toast: Sendable { var text: String; init(_ text: String) { self.text = text } }

struct Todos: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var items: [Item] = []
    var query = ""
    var todos: [Todo] = []
  }
  enum Action: Sendable { case saved }
  var body: some DripperOf<Self> { EmptyDripper() }
}

let station = Station(initialState: Todos.State()) { Todos() }
func render(_ state: some Sendable) {}
func show(_ toast: Toast) {}

struct App: Dripper {
  struct State: Equatable, Sendable { var search = Search.State() }
  enum Action: Sendable { case search(Search.Action) }
  var body: some DripperOf<Self> { EmptyDripper() }
}

extension CasePath<App.Action, Search.Action> {
  static var search: Self { Self(App.Action.search) { if case .search(let a) = $0 { a } else { nil } } }
}

enum metrics { static func record(_ action: some Sendable) {} }
enum log {
  static func debug(_ message: String) {}
  static func error(_ message: String) {}
}

// The case paths the README's AppFeature names after writing out `.counter`.
extension CasePath<AppFeature.Action, PresentationAction<Editor.Action>> {
  static var editor: Self { Self(AppFeature.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
}
extension CasePath<AppFeature.Action, IdentifiedAction<Row.State.ID, Row.Action>> {
  static var rows: Self { Self(AppFeature.Action.rows) { if case .rows(let a) = $0 { a } else { nil } } }
}

/// The wallet the README's host serves: a balance, withdrawals answered.
struct Wallet: Dripper {
  struct State: Codable, Sendable { var balance = 0 }
  enum Action: Codable, Sendable, ReplyingAction {
    typealias Reply = String
    case withdraw(Int)
  }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .withdraw(let amount):
        guard state.balance >= amount else { return .reply("would overdraw") }
        state.balance -= amount
        return .reply("ok")
      }
    }
  }
}
let idempotencyKey = "request-1"
