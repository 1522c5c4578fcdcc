import Dripper
import DripperTesting
import Testing

/// Issue 53: `withTaskCancellation(id:cancelInFlight:)` inside an effect, as in TCA: a part of an
/// effect cancellable by id, the effect around it going on.
private struct Lookup: Dripper {
  struct State: Equatable, Sendable { var log: [String] = [] }
  enum Action: Equatable, Sendable {
    case search(String)
    case cancel
    case record(String)
  }
  private enum LookupID: Hashable, Sendable { case search }
  @Dependency(\.clock) var clock
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .search(let query):
        return .run { pour in
          do {
            let found = try await withTaskCancellation(id: LookupID.search, cancelInFlight: true) {
              try await clock.sleep(for: .seconds(1))
              return "found \(query)"
            }
            await pour(.record(found))
          } catch is CancellationError {
            await pour(.record("\(query) cancelled"))
          }
        }
      case .cancel:
        return .cancel(id: LookupID.search)
      case .record(let text):
        state.log.append(text)
        return .none
      }
    }
  }
}

@Suite struct TaskCancellationTests {
  private func station(_ clock: TestClock) -> TestStation<Lookup.State, Lookup.Action> {
    TestStation(initialState: Lookup.State()) {
      Lookup()
    } withDependencies: {
      $0.clock = clock
    }
  }

  @Test func anOperationNotCancelledReturnsItsResult() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.search("milk"))
    await clock.advance(by: .seconds(1))
    await station.receive(.record("found milk")) { $0.log = ["found milk"] }
    await station.finish()
  }

  @Test func cancellingTheIDStopsTheOperationAndTheEffectGoesOn() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.search("milk"))
    await station.pour(.cancel)
    await station.receive(.record("milk cancelled")) { $0.log = ["milk cancelled"] }
    await clock.advance(by: .seconds(1))
    await station.finish()
  }

  @Test func cancelInFlightCancelsTheEarlierOperation() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.search("milk"))
    await station.pour(.search("oat milk"))
    await station.receive(.record("milk cancelled")) { $0.log = ["milk cancelled"] }
    await clock.advance(by: .seconds(1))
    await station.receive(.record("found oat milk")) { $0.log = ["milk cancelled", "found oat milk"] }
    await station.finish()
  }

  @Test func outsideAnEffectItRunsAsItIs() async throws {
    let value = try await withTaskCancellation(id: "plain") { 42 }
    #expect(value == 42)
  }
}
