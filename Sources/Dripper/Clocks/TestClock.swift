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
/// Sleepers wake one at a time, in the order of their deadlines, and in the order they went to
/// sleep when two deadlines are equal; cancelling a sleeper removes it. Before moving time, and
/// after waking each sleeper, ``advance(by:)`` waits until the effects of the Stations using this
/// clock have *settled*: each has ended, or waits — on the clock, a stream, an answer — with
/// nothing left to run. So an effect woken at one second has poured and gone back to sleep before
/// the clock reaches two, and whatever two effects woken together pour arrives in a fixed order.
/// The clock knows this exactly (the Stations' tasks run on an executor that counts their work),
/// so no advance waits for an effect blocked on something else. ``settleTimeout`` only bounds an
/// effect that never stops running (a busy loop): the clock then moves on and says so on
/// standard error, naming where the effect was written.
///
/// Advances never overlap: one called while another runs starts once it has finished, from the
/// time it reached, so concurrent advances add up.
public final class TestClock: Clock, Sendable, EffectWatcher {
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

  private struct State {
    var now = Instant()
    /// The sleepers by ticket: woken with `true`, cancelled with `false`.
    var sleepers = ParkedWaiters<Bool>()
    /// The deadline of each sleeper not yet woken or cancelled.
    var deadlines: [UInt64: Instant] = [:]
    /// The sleepers in the order they wake: by deadline, then ticket. Holds entries of sleepers
    /// cancelled since, skipped when they come up.
    var queue = MinHeap<Wake>()
    /// The executors of the Stations that use this clock, weakly.
    var watched: [WeakExecutor] = []
    /// Whether an advance is under way, and the advances waiting for it, oldest first.
    var advancing = false
    var turns = ParkedWaiters<Bool>()
    var waitingTurns = FIFO<UInt64>()

    /// Drops the cancelled entries of the wake queue once they outnumber the live ones.
    mutating func compactQueue() {
      guard queue.count > 64, queue.count > 2 * deadlines.count else { return }
      let live = deadlines
      queue.filter { live[$0.ticket] != nil }
    }
  }

  private struct Wake: Comparable {
    let deadline: Instant
    let ticket: UInt64

    static func < (lhs: Wake, rhs: Wake) -> Bool {
      (lhs.deadline.offset, lhs.ticket) < (rhs.deadline.offset, rhs.ticket)
    }
  }

  private struct WeakExecutor {
    weak var executor: WatchedExecutor?
  }

  private let state = Lock(State())

  /// How long ``advance(by:)`` waits, at most, for the Stations' effects to settle.
  public let settleTimeout: Duration

  /// Creates a clock at time zero.
  ///
  /// - Parameter settleTimeout: How long ``advance(by:)`` waits, at most, for effects to settle
  ///   before moving time. Ten seconds by default: the wait ends as soon as they settle, so only an
  ///   effect that never stops running ever makes it that long.
  public init(settleTimeout: Duration = .seconds(10)) {
    self.settleTimeout = settleTimeout
  }

  /// The current time.
  public var now: Instant { state.withLock { $0.now } }

  /// The clock has no minimum resolution.
  public var minimumResolution: Duration { .zero }

  /// Suspends until the clock reaches `deadline`, or throws `CancellationError` if the task is
  /// cancelled first.
  ///
  /// A sleep to a deadline not after now (`sleep(for: .zero)`) suspends too, until the clock is
  /// next advanced (`advance()` moves it by nothing) or run, as TCA's test clock does.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let watched = WatchedTask.current
    if let watched {
      watch(watched.executor)
      // Counted as asleep before the clock can wake it.
      watched.executor.clockSleep(watched.slot)
    }
    // A deadline not after now waits too, for the next advance or run, as swift-clocks' test
    // clock does: returning at once would race a cancellation against the sleeper's next step.
    let ticket = state.withLock { state in
      let ticket = state.sleepers.issue()
      state.deadlines[ticket] = deadline
      state.queue.insert(Wake(deadline: deadline, ticket: ticket))
      return ticket
    }
    let woken = await parked(
      issue: { ticket },
      park: { ticket, continuation in
        state.withLock { $0.sleepers.park(ticket, continuation, cancelled: false) }
      },
      cancel: { ticket in
        state.withLock { state in
          state.deadlines[ticket] = nil
          state.compactQueue()
          return state.sleepers.cancel(ticket)
        }
      },
      cancelled: false)
    watched?.executor.clockAwoke(woken: woken)
    guard woken else { throw CancellationError() }
  }

  /// Moves time forward by `duration`, waking every sleeper whose deadline it reaches, in order.
  ///
  /// Returns once the clock has reached the new time and the effects it woke have settled. An
  /// advance called while another runs starts from where that one ends.
  public func advance(by duration: Duration = .zero) async {
    await advancing { now in now.advanced(by: duration) }
  }

  /// Moves time forward to `deadline`, waking every sleeper whose deadline it reaches, in order.
  public func advance(to deadline: Instant) async {
    await advancing { _ in deadline }
  }

  /// Advances until no sleeper is left, waking each in order.
  ///
  /// - Parameter limit: The furthest the clock may go, so that an effect that always sleeps again
  ///   (a timer) cannot keep it running forever.
  public func run(limit: Duration = .seconds(3_600)) async {
    guard await takeTurn() else { return }
    defer { endTurn() }
    await wakeSleepers(notAfter: now.advanced(by: limit))
  }

  /// The number of tasks asleep on the clock.
  public var sleeperCount: Int {
    state.withLock { $0.deadlines.count }
  }

  /// Runs one advance in turn: `target` computes the new time from the time when its turn comes.
  private func advancing(to target: (Instant) -> Instant) async {
    guard await takeTurn() else { return }
    defer { endTurn() }
    let deadline = target(now)
    await wakeSleepers(notAfter: deadline)
    state.withLock { state in
      if state.now < deadline { state.now = deadline }
    }
  }

  /// Waits until no other advance is under way; returns `false` if the task was cancelled first.
  private func takeTurn() async -> Bool {
    let ticket: UInt64? = state.withLock { state in
      guard state.advancing else {
        state.advancing = true
        return nil
      }
      let ticket = state.turns.issue()
      state.waitingTurns.append(ticket)
      return ticket
    }
    guard let ticket else { return true }
    return await parked(
      issue: { ticket },
      park: { ticket, continuation in state.withLock { $0.turns.park(ticket, continuation, cancelled: false) }
      },
      cancel: { ticket in state.withLock { $0.turns.cancel(ticket) } },
      cancelled: false)
  }

  /// Hands the turn to the oldest advance waiting for it.
  private func endTurn() {
    let next = state.withLock { state -> UnsafeContinuation<Bool, Never>? in
      while let ticket = state.waitingTurns.removeFirst() {
        // A waiter whose task was cancelled has given its turn up; one not parked yet takes it
        // when it parks.
        if let continuation = state.turns.resolve(ticket, with: true) { return continuation }
        if state.turns.isIssued(ticket) { return nil }
      }
      state.advancing = false
      return nil
    }
    next?.resume(returning: true)
  }

  /// Wakes each sleeper due by `bound` in order, letting the effects settle before the first and
  /// after each; reports once if some did not.
  private func wakeSleepers(notAfter bound: Instant) async {
    var unsettled = await settle()
    while let sleeper = wakeNext(notAfter: bound) {
      sleeper.resume(returning: true)
      let running = await settle()
      if unsettled.isEmpty { unsettled = running }
    }
    if !unsettled.isEmpty {
      StandardError.print(Self.unsettledMessage(origins: unsettled, after: settleTimeout))
    }
  }

  /// Takes the earliest sleeper due by `deadline`, moving the clock to its deadline; a sleeper
  /// that has not suspended yet wakes as it does.
  private func wakeNext(notAfter deadline: Instant) -> UnsafeContinuation<Bool, Never>? {
    state.withLock { state -> UnsafeContinuation<Bool, Never>? in
      while let next = state.queue.min, next.deadline <= deadline {
        _ = state.queue.removeMin()
        guard state.deadlines.removeValue(forKey: next.ticket) != nil else { continue }
        if state.now < next.deadline { state.now = next.deadline }
        if let continuation = state.sleepers.resolve(next.ticket, with: true) { return continuation }
      }
      return nil
    }
  }

  // MARK: - Settling

  /// Waits for the effects running on `executor` to settle before moving time.
  func watch(_ executor: WatchedExecutor) {
    state.withLock { state in
      guard !state.watched.contains(where: { $0.executor === executor }) else { return }
      state.watched.removeAll { $0.executor == nil }
      state.watched.append(WeakExecutor(executor: executor))
    }
  }

  /// Waits until every watched Station's effects have settled, or ``settleTimeout`` passes.
  ///
  /// - Returns: Where the effects still running at the timeout were written; empty if they settled.
  private func settle() async -> [String] {
    let executors = state.withLock { $0.watched.compactMap(\.executor) }
    guard !executors.isEmpty else { return [] }
    let settled = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for executor in executors { await executor.waitUntilSettled() }
        return true
      }
      group.addTask {
        try? await Task.sleep(for: self.settleTimeout)
        return false
      }
      let settled = await group.next() ?? true
      group.cancelAll()
      return settled
    }
    return settled ? [] : executors.filter { !$0.isSettled }.flatMap(\.runningEffects)
  }

  /// What ``advance(by:)`` reports when effects are still running after ``settleTimeout``.
  static func unsettledMessage(origins: [some CustomStringConvertible], after timeout: Duration) -> String {
    let list = origins.map(\.description).joined(separator: ", ")
    return "TestClock: effects started at \(list) were still running after \(timeout), so time moved"
      + " on without them; an effect that waits on something other than the clock holds up every"
      + " advance for settleTimeout: give the clock a shorter one"
  }
}
