extension Clock where Duration == Swift.Duration {
  /// Ticks every `interval` until the task iterating it is cancelled: TCA's
  /// `clock.timer(interval:)`, for an effect that repeats.
  ///
  /// ```swift
  /// case .startTapped:
  ///   return .run { pour in
  ///     for await _ in clock.timer(interval: .seconds(1)) {
  ///       await pour(.tick)
  ///     }
  ///   }
  ///   .cancellable(id: TimerID(), cancelInFlight: true)
  /// ```
  ///
  /// Ticks fall at the timer's start plus whole intervals, so they do not drift with the time each
  /// takes to handle; a tick missed because the previous one took longer than `interval` is
  /// skipped, not delivered late in a burst. Each element is the tick's offset from the start
  /// (`interval`, `2 * interval`, …).
  ///
  /// Under a ``TestClock`` each tick is one sleep the test advances through: `advance(by:
  /// .seconds(3))` delivers exactly three ticks. Under an ``ImmediateClock`` the timer ticks at
  /// once, again and again, moving the clock forward an interval each time, until its effect is
  /// cancelled, as swift-clocks' `ImmediateClock` does: TCA's SyncUps tests depend on it (a meeting
  /// recorded under an immediate clock runs to its end). Combine's immediate scheduler, in older
  /// TCA code, fired a repeating timer once instead; a test that wants a given number of ticks
  /// advances a ``TestClock``.
  public func timer(interval: Swift.Duration, tolerance: Swift.Duration? = nil) -> ClockTimer {
    ClockTimer(clock: self, interval: interval, tolerance: tolerance)
  }
}

/// The ticks of `clock.timer(interval:tolerance:)`: an asynchronous sequence of
/// each tick's offset from the timer's start, ending when the iterating task is cancelled.
public struct ClockTimer: AsyncSequence, Sendable {
  /// A tick's offset from the timer's start.
  public typealias Element = Duration
  /// A timer never fails: cancellation ends it.
  public typealias Failure = Never

  let clock: any Clock<Duration>
  let interval: Duration
  let tolerance: Duration?

  /// Starts the timer: its first tick is one `interval` from now.
  public func makeAsyncIterator() -> AsyncIterator {
    precondition(interval > .zero, "clock.timer(interval:): the interval must be positive")
    return AsyncIterator(
      wait: Self.waiter(on: clock, interval: interval, tolerance: tolerance), interval: interval)
  }

  /// Waits for tick `n` (or the first one after it that is not already past), and returns the tick
  /// that fell; measured from the moment it is made.
  private static func waiter<C: Clock<Duration>>(
    on clock: C, interval: Duration, tolerance: Duration?
  ) -> @Sendable (Int) async throws -> Int {
    let start = clock.now
    return { tick in
      try await clock.sleep(until: start.advanced(by: interval * tick), tolerance: tolerance)
      // Woken late, past later ticks: the last tick that has fallen, found by division (a late
      // wake can be hours, and a loop over the missed ticks as many iterations), then corrected
      // a step at a time for the division's rounding.
      let elapsed = start.duration(to: clock.now)
      var fallen = Swift.max(tick, Int(Swift.min(elapsed / interval, Double(Int.max / 2))))
      while fallen > tick, interval * fallen > elapsed { fallen -= 1 }
      while interval * (fallen + 1) <= elapsed { fallen += 1 }
      return fallen
    }
  }

  /// Waits for each tick in turn.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let wait: @Sendable (Int) async throws -> Int
    let interval: Duration
    /// The tick to wait for next; 0 once the timer has ended.
    var tick = 1

    /// The next tick's offset from the start, or `nil` once the task is cancelled.
    public mutating func next() async -> Duration? {
      guard tick > 0, let fallen = try? await wait(tick) else {
        tick = 0
        return nil
      }
      tick = fallen + 1
      return interval * fallen
    }
  }
}
