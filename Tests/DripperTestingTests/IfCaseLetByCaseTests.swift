import Dripper
import DripperTesting
import Testing

/// `ifCaseLet(State.x, action: Action.x)`: a child in one case of an enum state, named by its
/// case (issue 53), with the edges TCA's `IfCaseLetReducerTests` pins: a sibling case's child stops
/// when the state leaves its case, and a child of another id in the same case is a new child.
@Suite struct IfCaseLetByCaseTests {
  private struct Ticker: Dripper {
    struct State: Equatable, Sendable { var count = 0 }
    enum Action: Equatable, Sendable {
      case timerButtonTapped
      case timerTick
    }
    @Dependency(\.clock) var clock
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .timerButtonTapped:
          return .run { pour in
            for await _ in clock.timer(interval: .seconds(1)) { await pour(.timerTick) }
          }
        case .timerTick:
          state.count += 1
          return .none
        }
      }
    }
  }

  private struct Siblings: Dripper {
    enum State: Equatable, Sendable {
      case child1(Ticker.State)
      case child2(Ticker.State)
    }
    enum Action: Equatable, Sendable {
      case child1(Ticker.Action)
      case child1ButtonTapped
      case child2(Ticker.Action)
      case child2ButtonTapped
    }
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .child1ButtonTapped: state = .child1(Ticker.State())
        case .child2ButtonTapped: state = .child2(Ticker.State())
        case .child1, .child2: break
        }
        return .none
      }
      .ifCaseLet(State.child1, action: Action.child1) { Ticker() }
      .ifCaseLet(State.child2, action: Action.child2) { Ticker() }
    }
  }

  /// TCA's `testEffectCancellation_Siblings`: the two cases hold the same child type, and leaving
  /// the first case stops its timer (or `finish()` would wait for it for ever).
  @Test func leavingTheCaseCancelsTheChildsEffects() async {
    let clock = TestClock()
    let station = TestStation(initialState: Siblings.State.child1(Ticker.State())) {
      Siblings()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.child1(.timerButtonTapped))
    await clock.advance(by: .seconds(1))
    await station.receive(.child1(.timerTick)) { $0 = .child1(Ticker.State(count: 1)) }
    await station.pour(.child2ButtonTapped) { $0 = .child2(Ticker.State()) }
    await clock.advance(by: .seconds(3))
    await station.finish()
  }

  private struct Responder: Dripper {
    struct State: Equatable, Sendable, Identifiable {
      let id: Int
      var value = 0
    }
    enum Action: Equatable, Sendable {
      case tap
      case response(Int)
    }
    @Dependency(\.clock) var clock
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .tap:
          return .run { [id = state.id] pour in
            try await clock.sleep(for: .seconds(1))
            await pour(.response(id))
          }
        case .response(let value):
          state.value = value
          return .none
        }
      }
    }
  }

  private struct Replacing: Dripper {
    enum State: Equatable, Sendable { case child(Responder.State) }
    enum Action: Equatable, Sendable {
      case child(Responder.Action)
      case newChild
    }
    var body: some DripperOf<Self> {
      Drip { state, action in
        if action == .newChild, case .child(let child) = state {
          state = .child(Responder.State(id: child.id + 1))
        }
        return .none
      }
      .ifCaseLet(State.child, action: Action.child) { Responder() }
    }
  }

  /// TCA's `testIdentifiableChild`: the first child's response never reaches the second.
  @Test func aChildOfAnotherIDInTheSameCaseIsANewChild() async {
    let clock = TestClock()
    let station = TestStation(initialState: Replacing.State.child(Responder.State(id: 1))) {
      Replacing()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.child(.tap))
    await station.pour(.newChild) { $0 = .child(Responder.State(id: 2)) }
    await station.pour(.child(.tap))
    await clock.advance(by: .seconds(1))
    await station.receive(.child(.response(2))) { $0 = .child(Responder.State(id: 2, value: 2)) }
    await station.finish()
  }
}
