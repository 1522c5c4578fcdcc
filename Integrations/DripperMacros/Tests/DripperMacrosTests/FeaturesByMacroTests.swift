import DripperMacros
import DripperTesting
import Testing

// `@Dripper` compiled and used: TCA's `@Reducer struct` and `@Reducer enum`, presented and stacked
// as TCA's are, without a trailing closure.

@Dripper
private struct Tally {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable {
    case add(Int)
    case startCounting
  }
  @Dependency(\.clock) var clock
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount):
        state.count += amount
        return .none
      case .startCounting:
        return .run { pour in
          while true {
            try await clock.sleep(for: .seconds(1))
            await pour(.add(1))
          }
        }
      }
    }
  }
}

@Dripper
private struct Memo {
  struct State: Equatable, Sendable { var text = "" }
  enum Action: Equatable, Sendable { case write(String) }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .write(let text): state.text = text
      }
      return .none
    }
  }
}

@Dripper
private enum Destination {
  case tally(Tally)
  case memo(Memo)
  case alert(AlertState<Alert>)

  enum Alert: Equatable, Sendable { case clear }
}
extension Destination.State: Equatable {}
extension Destination.Action: Equatable {}

@Dripper
private struct Desk {
  struct State: Equatable, Sendable {
    @PresentationState var destination: Destination.State?
    var path: StackState<Destination.State> = []
    var cleared = false
  }
  enum Action: Equatable, Sendable {
    case destination(PresentationAction<Destination.Action>)
    case path(StackAction<Destination.State, Destination.Action>)
    case showMemo
  }
  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .destination(.presented(.alert(.clear))) = action { state.cleared = true }
      if case .showMemo = action { state.destination = .memo(Memo.State()) }
      return .none
    }
    .ifLet(\.$destination, action: \.destination)
    .forEach(\.path, action: \.path)
  }
}

@Suite struct FeaturesByMacroTests {
  /// A presented enum of features runs the feature of its case; its state is read by case name.
  @Test func aPresentedDestinationRunsTheFeatureOfItsCase() async {
    let station = TestStation(initialState: Desk.State(destination: .tally(Tally.State()))) { Desk() }
    await station.pour(\.destination.presented.tally.add, 2) { $0.destination?.tally?.count = 2 }
    await station.pour(.destination(.dismiss)) { $0.destination = nil }
  }

  /// The presented enum switched to another case is a new presentation: the old case's feature
  /// is gone with its effects, as with a destination written by hand
  /// (`aDestinationSwitchingCaseIsANewPresentation` in the root package). Its counting never
  /// reaches the memo.
  @Test func aDestinationSwitchedToAnotherCaseCancelsTheOldFeaturesEffects() async {
    let clock = TestClock()
    let station = TestStation(initialState: Desk.State(destination: .tally(Tally.State()))) {
      Desk()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(\.destination.presented.tally.startCounting)
    await clock.advance(by: .seconds(1))
    await station.receive(\.destination.presented.tally.add, 1) { $0.destination?.tally?.count = 1 }
    await station.pour(.showMemo) { $0.destination = .memo(Memo.State()) }
    await clock.advance(by: .seconds(3))
    await station.pour(\.destination.presented.memo.write, "milk") { $0.destination?.memo?.text = "milk" }
    await station.finish()
  }

  /// An alert case holds a state with no logic; its action reaches the parent.
  @Test func anAlertCaseIsAStateWhoseActionReachesTheParent() async {
    let alert = AlertState<Destination.Alert> { TextState("Clear?") }
    let station = TestStation(initialState: Desk.State(destination: .alert(alert))) { Desk() }
    await station.pour(\.destination.presented.alert, .clear) {
      $0.destination = nil
      $0.cleared = true
    }
  }

  /// Each screen of a stack of an enum of features runs the feature of its case.
  @Test func aStackOfDestinationsRunsEachScreensFeature() async {
    let station = TestStation(initialState: Desk.State(path: [.memo(Memo.State()), .tally(Tally.State())])) {
      Desk()
    }
    await station.pour(\.path[id: 0].memo.write, "milk") { $0.path[id: 0]?.memo?.text = "milk" }
    await station.pour(\.path[id: 1].tally.add, 3) { $0.path[id: 1]?.tally?.count = 3 }
  }
}

/// A client of every shape of endpoint.
@DependencyClient
private struct Catalog: Sendable {
  var search: @Sendable (_ query: String, _ limit: Int) async throws -> [String]
  var save: @Sendable (_ value: Int) throws -> Void
  var finish: @Sendable () async -> Void
  var count: @Sendable () -> Int = { 0 }
  let region: String
}

/// A feature that calls the endpoints a test did not give.
@Dripper
private struct Shelf {
  struct State: Equatable, Sendable { var count = -1 }
  enum Action: Equatable, Sendable {
    case sync
    case counted(Int)
  }
  let catalog: Catalog
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .sync:
        return .run { [catalog] pour in
          try catalog.save(value: 1)
          await catalog.finish()
          await pour(.counted(catalog.count()))
        }
      case .counted(let count):
        state.count = count
        return .none
      }
    }
  }
}

extension FeaturesByMacroTests {
  /// A labelled endpoint is called with its labels; one not given fails the test naming client and
  /// endpoint, and one with a default answers with it, reported all the same.
  @Test func aClientsEndpointsAreUnimplementedUntilGiven() async throws {
    let catalog = Catalog(search: { query, limit in Array(repeating: query, count: limit) }, region: "eu")
    #expect(try await catalog.search(query: "milk", limit: 2) == ["milk", "milk"])
    let station = TestStation(initialState: Shelf.State()) { Shelf(catalog: catalog) }
    await withKnownIssue {
      await station.pour(.sync)
      await station.receive(.counted(0)) { $0.count = 0 }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.hasPrefix("unimplemented endpoint 'Catalog.") }
    }
  }
}
