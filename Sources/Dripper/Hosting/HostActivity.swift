public import Synchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// What a host has under way: activations and passivations in flight, and when its timer sleeps
/// until, so that ``StationHost/settle()`` knows when nothing is left to happen now.
@usableFromInline
final class HostActivity: Sendable {
  private struct State {
    var inFlight = 0
    var asleepUntil: Date?
    var nextSweep: Date?
    var waiters = ParkedWaiters<Void>()
  }

  private let state = Lock(State())
  /// When the host started, on its wall time: the origin of ``tick``.
  private let start: Date
  @usableFromInline let ticks = Atomic<Int64>(0)
  /// The wall time, read at each use of a key instead of the coarse clock: on a test clock, whose
  /// time moves only when a test advances it, so that a key idle for exactly its `idleAfter` is
  /// passivated then. `nil` on a live clock.
  @usableFromInline let exactNow: (@Sendable () -> Date)?

  init(start: Date, exactNow: (@Sendable () -> Date)?) {
    self.start = start
    self.exactNow = exactNow
  }

  /// Whether uses are stamped with the exact time (see ``exactNow``).
  var isExact: Bool { exactNow != nil }

  /// The host's clock of uses, in milliseconds from its start: on a live clock, coarse, the time of
  /// its timer's last wake, one relaxed load, which a pour can afford where a clock's reading would
  /// double its cost; exact on a test clock.
  @inlinable
  var tick: Int64 {
    if let exactNow { return tick(at: exactNow()) }
    return ticks.load(ordering: .relaxed)
  }

  /// Moves the coarse clock to `now`; returns it.
  func advanceTick(to now: Date) -> Int64 {
    ticks.max(tick(at: now), ordering: .relaxed)
    return ticks.load(ordering: .relaxed)
  }

  /// The clock's reading at `date`, exactly: milliseconds since the host started (to the nearest:
  /// a wall time far from 1970 is a `Double` a little off whole milliseconds).
  @usableFromInline
  func tick(at date: Date) -> Int64 {
    Int64((date.timeIntervalSince(start) * 1_000).rounded())
  }

  /// The wall time of reading `tick`.
  func date(ofTick tick: Int64) -> Date {
    start.addingTimeInterval(Double(tick) / 1_000)
  }

  func begin() { state.withLock { $0.inFlight += 1 } }

  func end() {
    let waiters = state.withLock { state in
      state.inFlight -= 1
      return state.waiters.takeAll()
    }
    for waiter in waiters { waiter.resume() }
  }

  func timerAsleep(until date: Date) {
    let waiters = state.withLock { state in
      state.asleepUntil = date
      return state.waiters.takeAll()
    }
    for waiter in waiters { waiter.resume() }
  }

  func timerAwake() { state.withLock { $0.asleepUntil = nil } }

  /// When the next sweep is due, `every` after the last.
  func nextSweep(after now: Date, every interval: Duration) -> Date {
    state.withLock { state in
      if let next = state.nextSweep { return next }
      let next = now.addingTimeInterval(interval.seconds)
      state.nextSweep = next
      return next
    }
  }

  /// Whether a sweep is due at `now`; if so, the next is scheduled.
  func takeSweep(at now: Date, every interval: Duration) -> Bool {
    state.withLock { state in
      guard let next = state.nextSweep, next <= now else { return false }
      var following = next.addingTimeInterval(interval.seconds)
      if following <= now { following = now.addingTimeInterval(interval.seconds) }
      state.nextSweep = following
      return true
    }
  }

  /// Waits until nothing is in flight and the timer sleeps until after `now()`.
  func waitUntilSettled(now: @escaping @Sendable () -> Date) async {
    while true {
      await parked(
        issue: { state.withLock { $0.waiters.issue() } },
        park: { ticket, continuation in
          state.withLock { state in
            let settled = state.inFlight == 0 && (state.asleepUntil.map { $0 > now() } ?? false)
            return state.waiters.park(ticket, continuation, unless: settled ? () : nil, cancelled: ())
          }
        },
        cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
        cancelled: ())
      if Task.isCancelled { return }
      let done = state.withLock { state in
        state.inFlight == 0 && (state.asleepUntil.map { $0 > now() } ?? false)
      }
      if done { return }
    }
  }

  /// Waits until nothing is in flight.
  func waitUntilNothingIsUnderWay() async {
    while !Task.isCancelled {
      let idle = state.withLock { $0.inFlight == 0 }
      if idle { return }
      await parked(
        issue: { state.withLock { $0.waiters.issue() } },
        park: { ticket, continuation in
          state.withLock { state in
            state.waiters.park(ticket, continuation, unless: state.inFlight == 0 ? () : nil, cancelled: ())
          }
        },
        cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
        cancelled: ())
    }
  }
}
