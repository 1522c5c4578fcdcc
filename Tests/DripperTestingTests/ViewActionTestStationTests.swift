import Dripper
import DripperTesting
import Testing

/// A counter whose view sends its own actions (TCA's `ViewAction`), and whose effect answers.
private struct FactCounter: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var fact: String?
  }

  enum Action: ViewAction, Equatable {
    case view(View)
    case factResponse(String)

    enum View: Equatable, Sendable {
      case incrementButtonTapped
      case factButtonTapped
    }
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .view(.incrementButtonTapped):
        state.count += 1
        return .none
      case .view(.factButtonTapped):
        return .run { [count = state.count] pour in await pour(.factResponse("\(count) is a number")) }
      case .factResponse(let fact):
        state.fact = fact
        return .none
      }
    }
  }
}

@Suite struct ViewActionTestStationTests {
  /// A test pours a view's action unwrapped or, as TCA's tests write it, wrapped: both are the
  /// same action, asserted the same way.
  @Test func aTestPoursAViewsActionEitherWay() async {
    let station = TestStation(initialState: FactCounter.State()) { FactCounter() }
    await station.pour(.incrementButtonTapped) { $0.count = 1 }
    await station.pour(.view(.incrementButtonTapped)) { $0.count = 2 }
    await station.pour(.factButtonTapped)
    await station.receive(.factResponse("2 is a number")) { $0.fact = "2 is a number" }
  }

  /// A view's action asserted wrongly fails as any action does.
  @Test func aWrongAssertionOnAViewsActionFails() async {
    let station = TestStation(initialState: FactCounter.State()) { FactCounter() }
    await withKnownIssue {
      await station.pour(.incrementButtonTapped) { $0.count = 2 }
    }
  }
}
