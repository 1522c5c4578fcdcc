// The feature the testing articles test: GettingStarted's counter. Compiled
// with their snippets by .ci/docs-snippets.sh.
import Dripper

struct Counter: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable { case increase, decrease, decreaseLater }

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
      }
    }
  }
}
