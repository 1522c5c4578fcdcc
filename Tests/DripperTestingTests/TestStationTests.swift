import Dripper
import DripperTesting
import Synchronization
import Testing

/// The counter of the README, on the clock dependency.
struct Counter: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable { case increase, decrease, decreaseLater, twice, tick, startTimer }

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase:
        state.count += 1
        return .none
      case .decrease:
        state.count -= 1
        return .none
      case .decreaseLater:
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.decrease)
        }
      case .twice:
        return .concatenate(.send(.increase), .send(.increase))
      case .tick:
        state.count += 10
        return .none
      case .startTimer:
        return .run { pour in
          while true {
            try await clock.sleep(for: .seconds(1))
            await pour(.tick)
          }
        }
      }
    }
  }
}

extension Counter {
  /// A `TestStation` of the counter whose effects sleep on `clock`; failures it reports at its end
  /// point at the caller's line.
  static func testStation(
    on clock: TestClock, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> TestStation<State, Action> {
    TestStation(
      initialState: State(), dripper: { Counter() }, withDependencies: { $0.clock = clock },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

/// A feature whose action is not `Equatable`: it carries a closure.
struct Loader: Dripper {
  struct State: Equatable, Sendable { var items: [String] = [] }
  enum Action: Sendable {
    case load
    case loaded([String], then: @Sendable () -> Void)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .load:
        return .run { pour in await pour(.loaded(["milk"], then: {})) }
      case .loaded(let items, _):
        state.items = items
        return .none
      }
    }
  }
}

extension CasePath<Loader.Action, [String]> {
  static var loaded: Self {
    Self(
      { Loader.Action.loaded($0, then: {}) },
      extract: { if case .loaded(let items, _) = $0 { items } else { nil } })
  }
}

/// Whether a recorded issue's comment contains `text`.
func mentions(_ text: String) -> (ExpectedFailure) -> Bool {
  { issue in issue.comments.contains { $0.rawValue.contains(text) } }
}

@Suite struct TestStationPassingTests {
  @Test func theReadmeExamplePasses() async {
    let clock = TestClock()
    let station = Counter.testStation(on: clock)
    await station.pour(.increase) { $0.count = 1 }
    await station.pour(.decreaseLater)
    await clock.advance(by: .seconds(1))
    await station.receive(.decrease) { $0.count = 0 }
    await station.finish()
  }

  @Test func sentActionsAreReceived() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.pour(.twice)
    await station.receive(.increase) { $0.count = 1 }
    await station.receive(.increase) { $0.count = 2 }
    await station.finish()
  }

  @Test func actionsThatAreNotEquatableAreReceivedByCase() async {
    let station = TestStation(initialState: Loader.State()) { Loader() }
    await station.pour(.load)
    await station.receive(.loaded) { $0.items = ["milk"] }
    await station.finish()
  }

  @Test func nonExhaustiveTestsCheckOnlyWhatTheyAssert() async {
    let clock = TestClock()
    let station = Counter.testStation(on: clock)
    station.exhaustivity = .off
    await station.pour(.twice)
    await station.receive(.increase) { $0.count = 1 }  // the second .increase is never asserted
    await station.pour(.startTimer)  // skips it
    await clock.advance(by: .seconds(3))
    await station.receive(.tick) { $0.count = 12 }  // the first of three ticks
    await station.skipReceivedActions()
    #expect(station.state.count == 32)
    await station.skipInFlightEffects()
    await station.finish()
  }

  @Test func theHelperChecksTheStatesOfAListOfActions() async {
    await expectStates(
      initialState: Counter.State(), dripper: Counter(),
      act: [.increase, .twice, .decrease],
      expect: [
        Counter.State(count: 1), Counter.State(count: 2), Counter.State(count: 3), Counter.State(count: 2),
      ])
  }
}
