import DripperTesting
import Synchronization
import Testing

/// A row that asks a client whether it is a favorite.
struct FavoriteRow: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var isFavorite = false
  }
  enum Action: Equatable, Sendable {
    case tapped
    case favoriteResponse(Bool)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .tapped:
        return .send(.favoriteResponse(true))
      case .favoriteResponse(let isFavorite):
        state.isFavorite = isFavorite
        return .none
      }
    }
  }
}

/// A list of rows whose action is not `Equatable`: one case carries a closure.
struct Favorites: Dripper {
  struct State: Equatable, Sendable { var rows: IdentifiedArrayOf<FavoriteRow.State> = [] }
  enum Action: Sendable {
    case rows(IdentifiedActionOf<FavoriteRow>)
    case callback(@Sendable () -> Void)
  }

  var body: some DripperOf<Self> {
    Drip { _, _ in .none }
      .forEach(\.rows, action: .rows) { FavoriteRow() }
  }
}

extension CasePath<Favorites.Action, IdentifiedActionOf<FavoriteRow>> {
  static var rows: Self {
    Self(Favorites.Action.rows) { if case .rows(let action) = $0 { action } else { nil } }
  }
}

extension CasePath<FavoriteRow.Action, Bool> {
  static var favoriteResponse: Self {
    Self(FavoriteRow.Action.favoriteResponse) {
      if case .favoriteResponse(let value) = $0 { value } else { nil }
    }
  }
}

/// An API client written endpoint by endpoint with `unimplemented`.
struct NumbersClient: Sendable {
  var fetch: @Sendable (Int) async throws -> [Int]
  var count: @Sendable () async -> Int
}

enum NumbersClientKey: DependencyKey {
  static let liveValue = NumbersClient(fetch: { Array(0..<$0) }, count: { 42 })
  static let testValue = NumbersClient(
    fetch: unimplemented("NumbersClient.fetch", placeholder: []),
    count: unimplemented("NumbersClient.count", placeholder: 0))
}

extension DependencyValues {
  var numbers: NumbersClient {
    get { self[NumbersClientKey.self] }
    set { self[NumbersClientKey.self] = newValue }
  }
}

struct Numbers: Dripper {
  struct State: Equatable, Sendable { var numbers: [Int] = [] }
  enum Action: Equatable, Sendable {
    case load
    case loaded([Int])
  }

  @Dependency(\.numbers) var client

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .load:
        return .run { pour in await pour(.loaded(try await client.fetch(3))) }
      case .loaded(let numbers):
        state.numbers = numbers
        return .none
      }
    }
  }
}

/// TCA's TestStore habits, spelled for TestStation.
@Suite struct TestStoreHabitsTests {
  func favorites() -> TestStation<Favorites.State, Favorites.Action> {
    TestStation(initialState: Favorites.State(rows: [FavoriteRow.State(id: 1), FavoriteRow.State(id: 2)])) {
      Favorites()
    }
  }

  @Test func aCasePathAndAPayloadReceiveActionsThatAreNotEquatable() async {
    let station = favorites()
    await station.pour(.rows(.element(id: 2, action: .tapped)))
    await station.receive(CasePath.rows[id: 2].appending(.favoriteResponse), true) {
      $0.rows[id: 2]?.isFavorite = true
    }
    await station.finish()
  }

  @Test func aFailingReceiveListsWhatCameWithADiffAgainstTheClosest() async {
    let station = favorites()
    await station.pour(.rows(.element(id: 2, action: .tapped)))
    await withExpectedFailure {
      await station.receive(CasePath.rows[id: 1].appending(.favoriteResponse), true)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        Expected to receive .rows(.element(id: 1, action: .favoriteResponse(true))), but received \
        .rows(.element(id: 2, action: .favoriteResponse(true))).
        Received, not asserted:
          .rows(.element(id: 2, action: .favoriteResponse(true)))
        The closest (- expected, + received):
          .rows(
            .element(
        -     id: 1
        +     id: 2
              action: .favoriteResponse(true)
            )
          )
        """
      ]
    }
    await station.finish()
  }

  @Test func dependenciesChangeBetweenSteps() async {
    let station = TestStation(initialState: Greeter.State()) { Greeter() }
    #expect(station.dependencies.greeting == "test")
    await station.pour(.greet) { $0.text = "test" }
    station.dependencies.greeting = "changed"
    await station.pour(.greet) { $0.text = "changed" }
    await station.finish()
  }

  @Test func strictSkipsFailWhenThereIsNothingToSkip() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await withExpectedFailure {
      await station.skipReceivedActions()
    } matching: { issue in
      issue.comments.map(\.rawValue) == ["There were no received actions to skip."]
    }
    await withExpectedFailure {
      await station.skipInFlightEffects()
    } matching: { issue in
      issue.comments.map(\.rawValue) == ["There were no in-flight effects to skip."]
    }
    await station.skipReceivedActions(strict: false)
    await station.skipInFlightEffects(strict: false)
    await station.pour(.twice)
    await station.skipReceivedActions()
    #expect(station.state.count == 2)
    await station.finish()
  }

  @Test func assertChecksTheStateWithoutPouring() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.pour(.increase) { $0.count = 1 }
    await station.assert { $0.count = 1 }
    await withExpectedFailure {
      await station.assert { $0.count = 5 }
    } matching: {
      mentions("The state after the assertion is not what was expected")($0)
    }
    await station.finish()
  }

  @Test func partOfATestCanBeNonExhaustive() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.withExhaustivity(.off) {
      await station.pour(.twice)
      await station.assert { $0.count = 2 }
    }
    #expect(station.exhaustivity == .on)
    await station.pour(.increase) { $0.count = 3 }
    await station.finish()
  }

  @Test func anUnimplementedEndpointFailsTheTestThatReachesIt() async {
    let station = TestStation(initialState: Numbers.State()) { Numbers() }
    await withExpectedFailure {
      await station.pour(.load).finish()
    } matching: {
      mentions("unimplemented endpoint 'NumbersClient.fetch'")($0)
    }
    await station.receive(.loaded([]))
    await station.finish()
  }

  @Test func anEndpointOverriddenForTheTestRunsInstead() async {
    let station = TestStation(initialState: Numbers.State()) {
      Numbers()
    } withDependencies: {
      $0.numbers.fetch = { [1, 2, 3].prefix($0).map { $0 } }
    }
    await station.pour(.load)
    await station.receive(.loaded([1, 2, 3])) { $0.numbers = [1, 2, 3] }
    await station.finish()
  }
}
