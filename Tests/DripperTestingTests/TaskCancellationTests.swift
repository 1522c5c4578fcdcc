import Dripper
import DripperTesting
import Testing

/// Issue 53: `withTaskCancellation(id:cancelInFlight:)` inside an effect, as in TCA: a part of an
/// effect cancellable by id, the effect around it going on.
private struct Lookup: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    var id = 0
    var log: [String] = []
  }
  enum Action: Equatable, Sendable {
    case search(String)
    case cancel
    case record(String)
    /// Waits without throwing, under an effect that is itself cancellable.
    case wait
    case cancelWaiting
    /// Searches inside `withDependencies`, which binds values of its own in the effect's task.
    case searchWithOverrides(String)
    /// Searches, and pours nothing when cancelled.
    case searchQuietly(String)
    /// Searches under the id inside a part under the same id, both cancelling in-flight work.
    case searchNested(String)
  }
  private enum LookupID: Hashable, Sendable { case search, wait, effect }
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
      case .wait:
        return .run { pour in
          // A non-throwing operation: no `try`, as with TCA's.
          let slept = await withTaskCancellation(id: LookupID.wait) {
            (try? await clock.sleep(for: .seconds(1))) != nil
          }
          await pour(.record(slept ? "slept" : "woken"))
        }
        .cancellable(id: LookupID.effect)
      case .cancelWaiting:
        return .cancel(id: LookupID.effect)
      case .searchWithOverrides(let query):
        return .run { pour in
          let found = await withDependencies {
            $0.clock = clock
          } operation: {
            try? await withTaskCancellation(id: LookupID.search) {
              try await clock.sleep(for: .seconds(1))
              return "found \(query)"
            }
          }
          await pour(.record(found ?? "\(query) cancelled"))
        }
      case .searchQuietly(let query):
        return .run { pour in
          let found = try await withTaskCancellation(id: LookupID.search) {
            try await clock.sleep(for: .seconds(1))
            return "found \(query)"
          }
          await pour(.record(found))
        }
      case .searchNested(let query):
        return .run { pour in
          let found = try await withTaskCancellation(id: LookupID.search, cancelInFlight: true) {
            try await withTaskCancellation(id: LookupID.search, cancelInFlight: true) {
              try await clock.sleep(for: .seconds(1))
              return "found \(query)"
            }
          }
          await pour(.record(found))
        }
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

  @Test func aNonThrowingOperationThrowsNothingAndSeesItsCancellation() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.wait)
    await clock.advance(by: .seconds(1))
    await station.receive(.record("slept")) { $0.log = ["slept"] }
    await station.finish()
  }

  @Test func cancellingTheEffectAroundItCancelsTheOperation() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.wait)
    // The effect is cancelled, so what it pours after is dropped: the operation ended early, or
    // the effect would still be waiting on the clock and `finish()` would not return.
    await station.pour(.cancelWaiting)
    await station.finish()
  }

  @Test func idsAreScopedToTheirRow() async {
    let clock = TestClock()
    let station = TestStation(initialState: Rows.State(rows: [Lookup.State(id: 1), Lookup.State(id: 2)])) {
      Rows()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.rows(.element(id: 1, action: .search("milk"))))
    await station.pour(.rows(.element(id: 2, action: .search("tea"))))
    // Row 1's cancel stops row 1's search alone, though both use the same id.
    await station.pour(.rows(.element(id: 1, action: .cancel)))
    await station.receive(.rows(.element(id: 1, action: .record("milk cancelled")))) {
      $0.rows[id: 1]?.log = ["milk cancelled"]
    }
    await clock.advance(by: .seconds(1))
    await station.receive(.rows(.element(id: 2, action: .record("found tea")))) {
      $0.rows[id: 2]?.log = ["found tea"]
    }
    await station.finish()
  }

  /// A row removed by the reducer around its `forEach` cancels its parts with its effects: were the
  /// part left asleep on the clock, `finish()` would wait for it.
  @Test func aRemovedRowsPartIsCancelled() async {
    let clock = TestClock()
    let station = TestStation(initialState: Rows.State(rows: [Lookup.State(id: 1)])) {
      Rows()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.rows(.element(id: 1, action: .searchQuietly("milk"))))
    await station.pour(.remove(id: 1)) { $0.rows = [] }
    await station.finish()
  }

  /// A part under an id inside a part under the same id, both with `cancelInFlight`, does not
  /// cancel the part it runs in: as an effect made cancellable twice with one id (TCA's
  /// `testDoubleCancelInFlight`), it is judged against what runs outside it.
  @Test func aPartNestedUnderItsOwnIDDoesNotCancelItself() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.searchNested("milk"))
    await clock.advance(by: .seconds(1))
    await station.receive(.record("found milk")) { $0.log = ["found milk"] }
    await station.finish()
  }

  @Test func insideWithDependenciesInAnEffectItIsStillAPartOfTheEffect() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.searchWithOverrides("milk"))
    await station.pour(.cancel)
    await station.receive(.record("milk cancelled")) { $0.log = ["milk cancelled"] }
    await station.finish()
  }

  @Test func outsideAnEffectItRunsAsItIs() async {
    let value = await withTaskCancellation(id: "plain") { 42 }
    #expect(value == 42)
    await #expect(throws: CancellationError.self) {
      try await withTaskCancellation(id: "plain") { throw CancellationError() }
    }
  }
}

/// Rows each running a ``Lookup``, to show that an operation's id is scoped to its row, and that a
/// removed row's operations stop.
private struct Rows: Dripper {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArrayOf<Lookup.State>
  }
  enum Action: Equatable, Sendable {
    case rows(IdentifiedActionOf<Lookup>)
    case remove(id: Int)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .remove(let id) = action { state.rows.remove(id: id) }
      return .none
    }
    .forEach(\.rows, action: CasePath(Action.rows)) { Lookup() }
  }
}
