import Dripper
import DripperTesting
import Testing

/// Issue 53: `clock.timer(interval:)` in an effect, as TCA's Timers case study writes it.
private struct Ticker: Dripper {
  struct State: Equatable, Sendable {
    var ticks = 0
    var isRunning = false
  }
  enum Action: Equatable, Sendable {
    case toggle
    /// A tick, with its offset from the timer's start.
    case tick(Duration)
  }
  private enum TimerID: Hashable, Sendable { case timer }
  @Dependency(\.clock) var clock
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .toggle:
        state.isRunning.toggle()
        guard state.isRunning else { return .cancel(id: TimerID.timer) }
        return .run { pour in
          for await offset in clock.timer(interval: .seconds(1)) { await pour(.tick(offset)) }
        }
        .cancellable(id: TimerID.timer, cancelInFlight: true)
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }
}

@Suite struct ClockTimerTests {
  @Test func aTestClockDeliversExactlyTheTicksItIsAdvancedThrough() async {
    let clock = TestClock()
    let station = TestStation(initialState: Ticker.State()) {
      Ticker()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.toggle) { $0.isRunning = true }
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await station.receive(.tick(.seconds(1))) { $0.ticks = 1 }
    await clock.advance(by: .seconds(2))
    await station.receive(.tick(.seconds(2))) { $0.ticks = 2 }
    await station.receive(.tick(.seconds(3))) { $0.ticks = 3 }
    await station.pour(.toggle) { $0.isRunning = false }
    await clock.advance(by: .seconds(5))  // cancelled with its effect: no more ticks
    await station.finish()
  }

  /// As swift-clocks' ImmediateClock: ticks at once, an interval apart on the clock, until the
  /// loop stops; TCA's SyncUps recording test (SyncUpsAppPortTests) depends on it.
  @Test func anImmediateClockTicksAtOnceUntilStopped() async {
    let clock = ImmediateClock()
    var ticks: [Duration] = []
    for await offset in clock.timer(interval: .seconds(1)) {
      ticks.append(offset)
      if ticks.count == 10 { break }
    }
    #expect(ticks == (1...10).map { .seconds($0) })
    #expect(clock.now.offset == .seconds(10))
  }

  @Test func aCancelledTimerEnds() async {
    let timer = Task {
      var ticks = 0
      for await _ in ContinuousClock().timer(interval: .seconds(3_600)) { ticks += 1 }
      return ticks
    }
    timer.cancel()
    #expect(await timer.value == 0)
  }

  /// A tick missed because the timer woke late (a slow handler, a suspended machine) is skipped:
  /// the next element is the last tick that fell, and later ticks keep to the timer's start.
  @Test func ticksMissedByALateWakeAreSkipped() async {
    let clock = LateClock(lateness: .milliseconds(2_500))
    var ticks: [Duration] = []
    for await offset in clock.timer(interval: .seconds(1)) {
      ticks.append(offset)
      if ticks.count == 3 { break }
    }
    // Asleep until 1 s, woken at 3.5 s: tick 3. Until 4 s, woken at 6.5 s: tick 6. And so on.
    #expect(ticks == [.seconds(3), .seconds(6), .seconds(9)])
  }

  /// A wake far past its tick finds the tick that fell by division, not by stepping through every
  /// tick missed (here a million million).
  @Test func aVeryLateWakeFindsItsTickAtOnce() async {
    let clock = LateClock(lateness: .seconds(1_000))
    var ticks: [Duration] = []
    for await offset in clock.timer(interval: .nanoseconds(1)) {
      ticks.append(offset)
      if ticks.count == 2 { break }
    }
    #expect(ticks == [.seconds(1_000) + .nanoseconds(1), .seconds(2_000) + .nanoseconds(2)])
  }
}

/// A clock whose sleeps return at once, `lateness` past their deadline.
private final class LateClock: Clock, Sendable {
  typealias Instant = TestClock.Instant
  let lateness: Duration
  private let current = LockIsolated(Instant())

  init(lateness: Duration) {
    self.lateness = lateness
  }

  var now: Instant { current.value }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    current.setValue(deadline.advanced(by: lateness))
  }
}
