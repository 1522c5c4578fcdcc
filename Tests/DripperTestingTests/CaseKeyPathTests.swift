import Dripper
import DripperTesting
import Testing

// Issue 60: TCA's key paths to cases (`\.books[id: 1].rename`), into the tables of case paths
// that `@CasePathable` (DripperMacros) writes. The tables here are written by hand, as the macro
// writes them, so that the root package tests every form without the macro.

/// A book, renamed by the user or by a loader.
private struct Book: Dripper {
  struct Failure: Error, Equatable {}
  struct State: Equatable, Identifiable, Sendable {
    let id: Int
    var title = ""
  }
  enum Action: Equatable, Sendable {
    case rename(String)
    case load
    case loaded(Result<String, Failure>)
  }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .rename(let title), .loaded(.success(let title)):
        state.title = title
        return .none
      case .load:
        return .send(.loaded(.success("Loaded")))
      case .loaded(.failure):
        return .none
      }
    }
  }
}

/// A shelf of books that composes its children by key paths only: a list, an optional book, a
/// stack of books, an alert, an enum-shaped mode and a bindable view.
private struct Shelf: Dripper {
  @dynamicMemberLookup
  enum Mode: Equatable, Sendable {
    case browsing(Book.State)
    case reading(Book.State)
  }
  struct State: Equatable, Sendable {
    var books: IdentifiedArrayOf<Book.State> = []
    var open: Book.State?
    var path: StackState<Book.State> = []
    @PresentationState var alert: AlertState<Never>?
    var mode = Mode.browsing(Book.State(id: 0))
    var query = ""
  }
  enum Action: Sendable {
    case books(IdentifiedActionOf<Book>)
    case open(Book.Action)
    case path(StackAction<Book.State, Book.Action>)
    case alert(PresentationAction<Never>)
    case mode(ModeAction)
    case view(View)
    case clear
    case read

    enum ModeAction: Sendable {
      case browsing(Book.Action)
      case reading(Book.Action)
    }
    enum View: BindableAction, Sendable {
      case binding(BindingAction<State>)
      var binding: BindingAction<State>? { if case .binding(let action) = self { action } else { nil } }
    }
  }

  var body: some DripperOf<Self> {
    Scope(state: \.mode, action: \.mode) {
      Scope(state: \.browsing, action: \.browsing) { Book() }
      EmptyDripper().ifCaseLet(\.reading, action: \.reading) { Book() }
    }
    BindingDripper(action: \.view)
    Drip { state, action in
      switch action {
      case .clear: state.books = []
      case .read: state.mode[case: \.browsing].map { state.mode = .reading($0) }
      default: break
      }
      return .none
    }
    .forEach(\.books, action: \.books) { Book() }
    .ifLet(\.open, action: \.open) { Book() }
    .forEach(\.path, action: \.path) { Book() }
    .ifLet(\.$alert, action: \.alert)
  }
}

// What `@CasePathable` writes for each enum.

extension Book.Action: CasePathable {
  fileprivate struct AllCasePaths: Sendable {
    fileprivate var rename: CasePath<Book.Action, String> {
      CasePath(Book.Action.rename) { if case .rename(let v) = $0 { v } else { nil } }
    }
    fileprivate var load: CasePath<Book.Action, Void> {
      CasePath({ Book.Action.load }, extract: { if case .load = $0 { () } else { nil } })
    }
    fileprivate var loaded: CasePath<Book.Action, Result<String, Book.Failure>> {
      CasePath(Book.Action.loaded) { if case .loaded(let v) = $0 { v } else { nil } }
    }
  }
  fileprivate static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Shelf.Mode: CasePathable {
  fileprivate struct AllCasePaths: Sendable {
    fileprivate var browsing: CasePath<Shelf.Mode, Book.State> {
      CasePath(Shelf.Mode.browsing) { if case .browsing(let v) = $0 { v } else { nil } }
    }
    fileprivate var reading: CasePath<Shelf.Mode, Book.State> {
      CasePath(Shelf.Mode.reading) { if case .reading(let v) = $0 { v } else { nil } }
    }
  }
  fileprivate static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Shelf.Action: CasePathable {
  fileprivate struct AllCasePaths: Sendable {
    fileprivate var books: CasePath<Shelf.Action, IdentifiedActionOf<Book>> {
      CasePath(Shelf.Action.books) { if case .books(let v) = $0 { v } else { nil } }
    }
    fileprivate var open: CasePath<Shelf.Action, Book.Action> {
      CasePath(Shelf.Action.open) { if case .open(let v) = $0 { v } else { nil } }
    }
    fileprivate var path: CasePath<Shelf.Action, StackAction<Book.State, Book.Action>> {
      CasePath(Shelf.Action.path) { if case .path(let v) = $0 { v } else { nil } }
    }
    fileprivate var alert: CasePath<Shelf.Action, PresentationAction<Never>> {
      CasePath(Shelf.Action.alert) { if case .alert(let v) = $0 { v } else { nil } }
    }
    fileprivate var mode: CasePath<Shelf.Action, ModeAction> {
      CasePath(Shelf.Action.mode) { if case .mode(let v) = $0 { v } else { nil } }
    }
    fileprivate var view: CasePath<Shelf.Action, View> {
      CasePath(Shelf.Action.view) { if case .view(let v) = $0 { v } else { nil } }
    }
    fileprivate var clear: CasePath<Shelf.Action, Void> {
      CasePath({ Shelf.Action.clear }, extract: { if case .clear = $0 { () } else { nil } })
    }
    fileprivate var read: CasePath<Shelf.Action, Void> {
      CasePath({ Shelf.Action.read }, extract: { if case .read = $0 { () } else { nil } })
    }
  }
  fileprivate static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Shelf.Action.ModeAction: CasePathable {
  fileprivate struct AllCasePaths: Sendable {
    fileprivate var browsing: CasePath<Shelf.Action.ModeAction, Book.Action> {
      CasePath(Shelf.Action.ModeAction.browsing) { if case .browsing(let v) = $0 { v } else { nil } }
    }
    fileprivate var reading: CasePath<Shelf.Action.ModeAction, Book.Action> {
      CasePath(Shelf.Action.ModeAction.reading) { if case .reading(let v) = $0 { v } else { nil } }
    }
  }
  fileprivate static var allCasePaths: AllCasePaths { AllCasePaths() }
}

@Suite struct CaseKeyPathTests {
  /// A key path goes through the cases of the tables and of the library's enums (a list's element,
  /// a stack's screen, a result): it embeds, and it extracts from its own case only.
  @Test func aKeyPathNamesAPathThroughSeveralCases() {
    let rename = CasePath<Shelf.Action, String>(\.books[id: 1].rename)
    #expect(rename.extract(.books(.element(id: 1, action: .rename("A")))) == "A")
    #expect(rename.extract(.books(.element(id: 2, action: .rename("A")))) == nil)
    #expect(rename.extract(.open(.rename("A"))) == nil)

    let loaded = CasePath<Shelf.Action, String>(\.path[id: 0].loaded.success)
    #expect(loaded.extract(.path(.element(id: 0, action: .loaded(.success("B"))))) == "B")
    #expect(loaded.extract(.path(.element(id: 0, action: .loaded(.failure(Book.Failure()))))) == nil)

    // The same path, by name after `CasePath`, where the root is known.
    let named: CasePath<Shelf.Action, String> = CasePath.mode.reading.loaded.success
    #expect(named.extract(.mode(.reading(.loaded(.success("C"))))) == "C")
    #expect(named.extract(.mode(.browsing(.loaded(.success("C"))))) == nil)
  }

  /// Each composition takes key paths: the list, the optional, the stack, the enum-shaped mode,
  /// both cases of it, and the bindings.
  @Test func compositionByKeyPaths() async {
    let book = Book.State(id: 1)
    let station = TestStation(
      initialState: Shelf.State(books: [book], open: Book.State(id: 9), path: [Book.State(id: 5)])
    ) { Shelf() }
    await station.pour(\.books[id: 1].rename, "Dune") { $0.books[id: 1]?.title = "Dune" }
    await station.pour(\.open.rename, "Emma") { $0.open?.title = "Emma" }
    await station.pour(\.path[id: 0].rename, "Ivanhoe") { $0.path[id: 0]?.title = "Ivanhoe" }
    await station.pour(\.mode.browsing.rename, "Kim") { $0.mode = .browsing(Book.State(id: 0, title: "Kim")) }
    await station.pour(CasePath.view.binding.query, "d") { $0.query = "d" }
    await station.pour(\.read) { $0.mode = .reading(Book.State(id: 0, title: "Kim")) }
    await station.pour(\.mode.reading.load)
    await station.receive(\.mode.reading.loaded.success, "Loaded") {
      $0.mode.modify(\.reading) { $0.title = "Loaded" }
    }
    await station.pour(\.clear) { $0.books = [] }
  }

  /// A test receives by key path, with a payload or whatever the payload, as TCA's tests do.
  @Test func receivingByKeyPath() async {
    let station = TestStation(initialState: Shelf.State(books: [Book.State(id: 1)])) { Shelf() }
    await station.pour(\.books[id: 1].load)
    await station.receive(\.books[id: 1].loaded.success, "Loaded") { $0.books[id: 1]?.title = "Loaded" }
    await station.pour(\.books[id: 1].load)
    await station.receive(\.books[id: 1].loaded)
  }

  /// An enum state is changed and tested by key path, as TCA's `$0.modify(\.browsing) { … }`.
  @Test func anEnumStateIsChangedInPlaceByKeyPath() {
    var mode = Shelf.Mode.browsing(Book.State(id: 0))
    mode.modify(\.browsing) { $0.title = "Kim" }
    #expect(mode == .browsing(Book.State(id: 0, title: "Kim")))
    #expect(mode.is(\.browsing) && !mode.is(\.reading))
    mode[case: \.reading] = Book.State(id: 3)
    #expect(mode[case: \.reading]?.id == 3 && mode[case: \.browsing] == nil)
    mode.reading?.title = "Emma"
    #expect(mode.reading == Book.State(id: 3, title: "Emma") && mode.browsing == nil)
  }

  /// A scoped Station names its child's case by key path.
  @Test func aStationScopesByKeyPath() async {
    let station = Station(initialState: Shelf.State(open: Book.State(id: 9))) { Shelf() }
    let open = station.scope(state: \.open, action: \.open)
    await open.pour(.rename("Emma")).finish()
    #expect(await station.open?.title == "Emma")
  }
}

/// isowords' LeaderboardResults, generic over its time scope: its table is written once, in a
/// generic extension, and names the case for every scope.
private struct Leaderboard<TimeScope: Hashable & Sendable>: Dripper {
  struct State: Equatable, Sendable { var results: [String] = [] }
  enum Action: Equatable, Sendable {
    case load(TimeScope)
    case resultsResponse(Result<[String], Book.Failure>)
  }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .load(let scope): return .send(.resultsResponse(.success(["\(scope)"])))
      case .resultsResponse(let response):
        state.results = (try? response.get()) ?? []
        return .none
      }
    }
  }
}

extension Leaderboard.Action: CasePathable {
  fileprivate struct AllCasePaths: Sendable {
    fileprivate var resultsResponse: CasePath<Leaderboard.Action, Result<[String], Book.Failure>> {
      CasePath(Leaderboard.Action.resultsResponse) { if case .resultsResponse(let v) = $0 { v } else { nil } }
    }
  }
  fileprivate static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension CaseKeyPathTests {
  /// TCA's `receive(\.resultsResponse.success)` on a generic feature, for two scopes.
  @Test func aGenericFeaturesKeyPathNamesTheCaseForEveryScope() async {
    let weekly = TestStation(initialState: Leaderboard<String>.State()) { Leaderboard<String>() }
    await weekly.pour(.load("week"))
    await weekly.receive(\.resultsResponse.success, ["week"]) { $0.results = ["week"] }
    let byGame = TestStation(initialState: Leaderboard<Int>.State()) { Leaderboard<Int>() }
    await byGame.pour(.load(3))
    await byGame.receive(\.resultsResponse.success, ["3"]) { $0.results = ["3"] }
  }
}
