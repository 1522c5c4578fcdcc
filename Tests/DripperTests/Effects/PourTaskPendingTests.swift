import Dripper
import Testing

/// Issue 53: `finish()` waits for the whole cascade, as TCA's does; a long wait is findable.
private struct Chat: Dripper {
  struct State: Equatable, Sendable { var messages = 0 }
  enum Action: Equatable, Sendable { case connect, listen, message }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .connect:
        return .send(.listen)
      case .listen:
        return .run { pour in  // an endless listener, started by an action an effect poured
          for await _ in AsyncStream<Never>.never {}
          await pour(.message)
        }
      case .message:
        state.messages += 1
        return .none
      }
    }
  }
}

@Suite struct PourTaskPendingTests {
  @Test func aPourNamesTheEffectsItsFinishWaitsFor() async {
    let station = Station(initialState: Chat.State()) { Chat() }
    let connect = station.pour(.connect)
    let pending = await firstNonEmpty { connect.pendingEffects }
    #expect(pending.count == 1)
    #expect(pending.first?.hasPrefix("DripperTests/PourTaskPendingTests.swift:") == true)
    #expect(connect.debugDescription.contains("waiting for DripperTests/PourTaskPendingTests.swift:"))
    connect.cancel()
    await connect.finish()
    #expect(connect.pendingEffects.isEmpty)
    #expect(!connect.debugDescription.contains("waiting"))
  }

  /// Waits, bounded, until `read` is not empty: the listener's task has been registered.
  private func firstNonEmpty(_ read: () -> [String]) async -> [String] {
    let deadline = ContinuousClock.now + .seconds(10)
    while read().isEmpty, ContinuousClock.now < deadline { await Task.yield() }
    return read()
  }
}
