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
}
