import DripperTesting
import Testing

@testable import Dripper

private struct Ticker: Dripper {
  struct State: Equatable, Sendable { var ticks = 0 }
  enum Action: Equatable, Sendable { case start, tick }
  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .start:
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.tick)
        }
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }
}

/// Two cases of one enum, each a ticker, each scoped with its own `ifCaseLet`.
private struct Sides: Dripper {
  enum State: Equatable, Sendable {
    case left(Ticker.State)
    case right(Ticker.State)
  }
  enum Action: Equatable, Sendable {
    case left(Ticker.Action)
    case right(Ticker.Action)
    case switchToRight
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      guard case .switchToRight = action else { return .none }
      state = .right(Ticker.State())
      return .send(.right(.start))
    }
    .ifCaseLet(
      CasePath(State.left) { if case .left(let s) = $0 { s } else { nil } },
      action: CasePath(Action.left) { if case .left(let a) = $0 { a } else { nil } }
    ) { Ticker() }
    .ifCaseLet(
      CasePath(State.right) { if case .right(let s) = $0 { s } else { nil } },
      action: CasePath(Action.right) { if case .right(let a) = $0 { a } else { nil } }
    ) { Ticker() }
  }
}

@Suite struct SiblingNamespaceTests {
  /// Leaving `.left` cancels the left ticker's effects in the reduction that sends the right
  /// ticker's start: the right ticker, a sibling over the same child type, keeps its effect. (Each
  /// `ifCaseLet` is a namespace of its own, told apart by where it is written; and a `.send` is
  /// reduced after the cancellations of the effect that carries it, so even one shared namespace
  /// would not lose this tick. The test pins the behaviour either way.)
  @Test func leavingOneCaseDoesNotCancelASiblingOverTheSameChildType() async {
    let clock = TestClock()
    let station = TestStation(initialState: Sides.State.left(Ticker.State())) {
      Sides()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.left(.start))
    await station.pour(.switchToRight) { $0 = .right(Ticker.State()) }
    await station.receive(.right(.start))
    await clock.advance(by: .seconds(1))
    await station.receive(.right(.tick)) { $0 = .right(Ticker.State(ticks: 1)) }
    await station.finish()
  }
}
