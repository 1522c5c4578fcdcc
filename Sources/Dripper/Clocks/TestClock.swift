import Synchronization

/// A clock whose time moves only when you say so: the clock of deterministic tests.
///
/// Give it to a Station as its ``DependencyValues/clock``, then move time with ``advance(by:)`` or
/// ``run(limit:)``:
///
/// ```swift
/// let clock = TestClock()
/// let station = Station(initialState: Timer.State()) { Timer() } withDependencies: {
///   $0.clock = clock
/// }
/// await station.pour(.start).finish()       // the timer effect now sleeps on the clock
/// await clock.advance(by: .seconds(3))     // three ticks, in order
/// #expect(await station.ticks == 3)
/// ```
///
/// Sleepers wake in the order of their deadlines (and in the order they went to sleep when two
/// deadlines are equal); cancelling a sleeper removes it. Before moving time, and after waking each
/// sleeper, ``advance(by:)`` waits until the effects of the Stations using this clock have settled
/// — each has finished or is asleep on the clock — so that an effect woken at one second has gone
/// back to sleep before the clock reaches two. That wait is bounded by ``settleTimeout``: an effect
/// waiting on something other than the clock (a stream, say) holds time up for that long, and
/// the clock then says so on standard error, naming where the effect was written. A generous
/// bound keeps tests deterministic on a loaded machine; a feature with long-lived effects can pass
/// a short one:
///
/// ```swift
/// let clock = TestClock(settleTimeout: .milliseconds(50))
/// ```
public final class TestClock: Clock, Sendable {
  /// A moment on a ``TestClock``: the time elapsed since the clock was created.
  public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// The time since the clock's start.
    public let offset: Duration

    /// Creates an instant `offset` after the clock's start.
    public init(offset: Duration = .zero) { self.offset = offset }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

    /// The offset, for messages.
    public var description: String { "\(offset)" }
  }

  private struct Sleeper {
    let deadline: Instant
    let continuation: UnsafeContinuation<Void, any Error>
    let token: EffectToken?
  }

  private enum SleeperState {
    /// The sleeper's task is about to suspend.
    case issued
    case sleeping(Sleeper)
    /// Its task was cancelled before it suspended.
    case cancelled
  }

  private struct State {
    var now = Instant()
    var sleepers: [UInt64: SleeperState] = [:]
    var nextSleeper: UInt64 = 0
    /// The effect registries of the Stations that use this clock, weakly.
    var watched: [WeakRegistry] = []
  }

  private struct WeakRegistry {
    weak var registry: EffectRegistry?
  }

  private let state = Lock(State())

  /// How long ``advance(by:)`` waits, at most, for the Stations' effects to settle.
  public let settleTimeout: Duration

  /// Creates a clock at time zero.
  ///
  /// - Parameter settleTimeout: How long ``advance(by:)`` waits, at most, for effects to settle
  ///   before moving time. Ten seconds by default: the wait ends as soon as they settle, so only an
  ///   effect that waits on something other than the clock ever makes it that long.
  public init(settleTimeout: Duration = .seconds(10)) {
    self.settleTimeout = settleTimeout
  }

  /// The current time.
  public var now: Instant { state.withLock { $0.now } }

  /// The clock has no minimum resolution.
  public var minimumResolution: Duration { .zero }

  /// Suspends until the clock reaches `deadline`, or throws `CancellationError` if the task is
  /// cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let token = DependencyValues.current.effectToken
    let number: UInt64? = state.withLock { state in
      guard deadline > state.now else { return nil }
      defer { state.nextSleeper += 1 }
      state.sleepers[state.nextSleeper] = .issued
      return state.nextSleeper
    }
    guard let number else { return await Task.yield() }
    watch(token?.registry)
    // The effect counts as parked from before the clock can wake it: the clock unparks it, exactly
    // once, before resuming it.
    token?.park()
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        let cancelled = state.withLock { state -> Bool in
          guard case .issued = state.sleepers[number] else {
            state.sleepers[number] = nil
            return true
          }
          state.sleepers[number] = .sleeping(
            Sleeper(deadline: deadline, continuation: continuation, token: token))
          return false
        }
        if cancelled {
          token?.unpark()
          continuation.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        switch state.sleepers[number] {
        case .issued:
          state.sleepers[number] = .cancelled
          return nil
        case .sleeping(let sleeper):
          state.sleepers[number] = nil
          return sleeper
        case .cancelled, nil:
          return nil
        }
      }
      if let sleeper {
        sleeper.token?.unpark()
        sleeper.continuation.resume(throwing: CancellationError())
      }
    }
  }

  /// Moves time forward by `duration`, waking every sleeper whose deadline it reaches, in order.
  ///
  /// Returns once the clock has reached the new time and the effects it woke have settled.
  public func advance(by duration: Duration = .zero) async {
    await advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `deadline`, waking every sleeper whose deadline it reaches, in order.
  public func advance(to deadline: Instant) async {
    await wakeSleepers(notAfter: deadline)
    state.withLock { state in
      if state.now < deadline { state.now = deadline }
    }
  }

  /// Advances until no sleeper is left, waking each in order.
  ///
  /// - Parameter limit: The furthest the clock may go, so that an effect that always sleeps again
  ///   (a timer) cannot keep it running forever.
  public func run(limit: Duration = .seconds(3_600)) async {
    await wakeSleepers(notAfter: now.advanced(by: limit))
  }

  /// The number of tasks asleep on the clock.
  public var sleeperCount: Int {
    state.withLock { state in
      state.sleepers.values.count { if case .sleeping = $0 { true } else { false } }
    }
  }

  /// Wakes each sleeper due by `bound` in order, letting the effects settle before the first and
  /// after each; reports once if some did not.
  private func wakeSleepers(notAfter bound: Instant) async {
    var unsettled = await settle()
    while let sleeper = wakeNext(notAfter: bound) {
      sleeper.token?.unpark()
      sleeper.continuation.resume()
      let running = await settle()
      if unsettled.isEmpty { unsettled = running }
    }
    if !unsettled.isEmpty {
      StandardError.print(Self.unsettledMessage(origins: unsettled, after: settleTimeout))
    }
  }

  /// Removes the earliest sleeper due by `deadline`, moving the clock to its deadline.
  private func wakeNext(notAfter deadline: Instant) -> Sleeper? {
    state.withLock { state -> Sleeper? in
      var next: (number: UInt64, sleeper: Sleeper)?
      for (number, entry) in state.sleepers {
        guard case .sleeping(let sleeper) = entry, sleeper.deadline <= deadline else { continue }
        if let current = next,
          (current.sleeper.deadline, current.number) < (sleeper.deadline, number)
        {
          continue
        }
        next = (number, sleeper)
      }
      guard let next else { return nil }
      state.sleepers[next.number] = nil
      if state.now < next.sleeper.deadline { state.now = next.sleeper.deadline }
      return next.sleeper
    }
  }

  // MARK: - Settling

  /// Lets this clock wait for the effects of a Station before it moves time.
  func watch(_ registry: EffectRegistry?) {
    guard let registry else { return }
    state.withLock { state in
      state.watched.removeAll { $0.registry == nil }
      if !state.watched.contains(where: { $0.registry === registry }) {
        state.watched.append(WeakRegistry(registry: registry))
      }
    }
  }

  /// Waits until every watched Station's effects have settled, or ``settleTimeout`` passes.
  ///
  /// - Returns: Where the effects still running at the timeout were written; empty if they settled.
  private func settle() async -> [EffectOrigin] {
    let registries = state.withLock { $0.watched.compactMap(\.registry) }
    guard !registries.isEmpty else { return [] }
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for registry in registries { await registry.wait(until: .settled) }
        return true
      }
      group.addTask {
        try? await Task.sleep(for: self.settleTimeout)
        return false
      }
      let settled = await group.next() ?? true
      group.cancelAll()
      return settled ? [] : registries.flatMap(\.runningOrigins)
    }
  }

  /// What ``advance(by:)`` reports when effects are still running after ``settleTimeout``.
  static func unsettledMessage(origins: [some CustomStringConvertible], after timeout: Duration) -> String {
    let list = origins.map(\.description).joined(separator: ", ")
    return "TestClock: effects started at \(list) were still running after \(timeout), so time moved"
      + " on without them; an effect that waits on something other than the clock holds up every"
      + " advance for settleTimeout: give the clock a shorter one"
  }
}
