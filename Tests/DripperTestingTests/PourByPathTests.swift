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

/// isowords' LeaderboardResults, generic over its time scope: its case paths are written once, as
/// generic static functions, for every scope.
private struct LeaderboardResults<TimeScope: Hashable & Sendable>: Dripper {
  struct Failure: Error, Equatable {}
  struct State: Equatable, Sendable {
    var timeScope: TimeScope
    var results: [String]?
  }
  enum Action: Equatable, Sendable {
    case load
    case resultsResponse(Result<[String], Failure>)
  }
  let fetch: @Sendable (TimeScope) async throws(Failure) -> [String]
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .load:
        return .run { [scope = state.timeScope] pour in
          await pour(.resultsResponse(Result { () async throws(Failure) in try await fetch(scope) }))
        }
      case .resultsResponse(.success(let results)):
        state.results = results
        return .none
      case .resultsResponse(.failure):
        return .none
      }
    }
  }
}

extension CasePath {
  /// `LeaderboardResults<TimeScope>.Action.resultsResponse`, for every `TimeScope`.
  fileprivate static func resultsResponse<TimeScope>() -> Self
  where
    Root == LeaderboardResults<TimeScope>.Action,
    Value == Result<[String], LeaderboardResults<TimeScope>.Failure>
  {
    Self(Root.resultsResponse) { if case .resultsResponse(let response) = $0 { response } else { nil } }
  }
}

extension PourByPathTests {
  /// TCA's `receive(\.resultsResponse.success)` on a generic feature: one path for two scopes.
  @Test func aGenericFeaturesPathIsWrittenOnceForEveryScope() async {
    enum Period: Hashable, Sendable { case week, allTime }
    let weekly = TestStation(initialState: LeaderboardResults<Period>.State(timeScope: .week)) {
      LeaderboardResults<Period>(fetch: { _ in ["blob"] })
    }
    await weekly.pour(.load)
    await weekly.receive(CasePath.resultsResponse().appending(.success), ["blob"]) { $0.results = ["blob"] }
    let byGame = TestStation(initialState: LeaderboardResults<Int>.State(timeScope: 3)) {
      LeaderboardResults<Int>(fetch: { _ in ["blob jr"] })
    }
    await byGame.pour(.load)
    await byGame.receive(CasePath.resultsResponse().success, ["blob jr"]) {
      $0.results = ["blob jr"]
    }
  }
}

/// A sign-in form whose view sends its bindings.
private struct SignIn: Dripper {
  struct State: Equatable, Sendable {
    var email = ""
    var remember = false
  }
  enum Action: Sendable {
    case view(View)
    enum View: BindableAction, Sendable {
      case binding(BindingAction<State>)
      var binding: BindingAction<State>? { if case .binding(let action) = self { action } else { nil } }
    }
  }
  var body: some DripperOf<Self> { BindingDripper(action: .view) }
}

extension CasePath<SignIn.Action, SignIn.Action.View> {
  fileprivate static var view: Self { Self(SignIn.Action.view) }
}

extension PourByPathTests {
  /// TCA's `store.send(\.view.binding.email, "x")`: the path to one field's binding, poured with a
  /// value; it extracts the value of a binding of that field, and nothing from another's.
  @Test func aBindingsPathNamesOneField() async {
    let email = CasePath.view.binding.email
    #expect(email.extract(.view(.set(\.email, "blob@pointfree.co"))) == "blob@pointfree.co")
    #expect(email.extract(.view(.set(\.remember, true))) == nil)
    #expect(CasePath.view.binding.remember.extract(email.embed("x")) == nil)

    let station = TestStation(initialState: SignIn.State()) { SignIn() }
    await station.pour(CasePath.view.binding.email, "blob@pointfree.co") { $0.email = "blob@pointfree.co" }
    await station.pour(CasePath.view.binding.remember, true) { $0.remember = true }
  }
}

/// A navigation stack of counters.
private struct Screens: Dripper {
  struct Screen: Dripper {
    struct State: Equatable, Sendable { var count = 0 }
    enum Action: Equatable, Sendable { case add(Int) }
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .add(let amount): state.count += amount
        }
        return .none
      }
    }
  }
  struct State: Equatable, Sendable { var path: StackState<Screen.State> = [] }
  enum Action: Sendable { case path(StackAction<Screen.State, Screen.Action>) }
  var body: some DripperOf<Self> { EmptyDripper().forEach(\.path, action: .path) { Screen() } }
}

extension CasePath<Screens.Action, StackAction<Screens.Screen.State, Screens.Screen.Action>> {
  fileprivate static var path: Self { Self(Screens.Action.path) }
}
extension CasePath<Screens.Screen.Action, Int> {
  fileprivate static var add: Self { Self(Screens.Screen.Action.add) }
}

extension PourByPathTests {
  /// TCA's `store.send(\.path[id: 1].add, 2)`: a screen of a stack by its id, and its action's
  /// path after it; the path extracts nothing from another screen's action.
  @Test func pouringAScreensActionByItsPath() async {
    let station = TestStation(initialState: Screens.State(path: [.init(), .init()])) { Screens() }
    await station.pour(CasePath.path[id: 1].add, 2) { $0.path[id: 1]?.count = 2 }
    #expect(CasePath.path[id: 0].add.extract(.path(.element(id: 1, action: .add(2)))) == nil)
    #expect(CasePath.path[id: 1].add.extract(.path(.element(id: 1, action: .add(2)))) == 2)
  }
}
