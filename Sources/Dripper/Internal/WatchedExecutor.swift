import Dispatch

/// Something in a test that must know when a Station's effects have nothing left to run: a test
/// clock, before it moves time. The runtime knows it only through this protocol.
protocol EffectWatcher: AnyObject, Sendable {
  /// Starts watching the effects that run on `executor`.
  func watch(_ executor: WatchedExecutor)
}

/// The executor every task of a watched Station runs on — its effects, their child tasks, the
/// task that drains its mailbox — and that knows when none of them has anything to run.
///
/// A Station is watched when its clock is a test clock or its dependencies are in the test
/// context. Its tasks prefer this executor; child tasks (task groups, `async let`, `Task {}`)
/// inherit the preference, and the Station's actor, a default actor, runs their calls on it too.
/// So the executor counts every job the effects have queued or are running, and when the count
/// falls to zero they are *settled*: each waits for something outside — time on a test clock, a
/// stream, an answer — and nothing it could do would happen without that. A test clock waits
/// for that before moving time again; a test harness, before deciding that an action cannot
/// arrive. No timeout, no guess.
///
/// A call from one of these tasks into the Station's actor while the actor is held by another
/// task (the test's) waits in the actor's queue, not in this executor's: such calls are counted
/// as *away* for their duration (``runAway(_:)``).
///
/// Jobs run one at a time, in the order they were queued, on a serial queue of the Station's own:
/// two effects woken together run in the order they went to sleep.
@usableFromInline
final class WatchedExecutor: TaskExecutor {
  private struct State {
    /// Jobs queued or running.
    var jobs = 0
    /// Calls to the Station's actor under way.
    var away = 0
    /// How many times the executor has become settled.
    var epoch: UInt64 = 0
    /// How many tasks of each effect sleep on a test clock.
    var clockSleepers: [EffectSlotID: Int] = [:]
    var waiters = ParkedWaiters<Void>()

    var isSettled: Bool { jobs == 0 && away == 0 }

    /// Counts a job or call out, waking the waiters if it was the last.
    mutating func end(counting keyPath: WritableKeyPath<State, Int>) -> [UnsafeContinuation<Void, Never>] {
      self[keyPath: keyPath] -= 1
      guard isSettled else { return [] }
      epoch += 1
      return waiters.takeAll()
    }
  }

  private let queue = DispatchQueue(label: "org.dripper.watched-effects")
  private let state = Lock(State())
  /// Describes the effects still running, for a test clock's report; set by the Station.
  private let describe = Lock<(@Sendable () -> [String])?>(nil)

  init() {}

  /// Where the effects still running were written, as the Station describes them.
  var runningEffects: [String] { describe.withLock { $0 }?() ?? [] }

  /// Lets the Station describe its running effects.
  func describeRunningEffects(with description: @escaping @Sendable () -> [String]) {
    describe.withLock { $0 = description }
  }

  @usableFromInline
  func enqueue(_ job: consuming ExecutorJob) {
    state.withLock { $0.jobs += 1 }
    let job = UnownedJob(job)
    queue.async { [self] in
      job.runSynchronously(on: asUnownedTaskExecutor())
      for waiter in state.withLock({ $0.end(counting: \.jobs) }) { waiter.resume() }
    }
  }

  /// Whether no job is queued or running and no call is away.
  var isSettled: Bool { state.withLock { $0.isSettled } }

  /// How many times the executor has settled: a waiter that saw it settled at one epoch waits for
  /// the next with ``waitUntilSettled(after:)``.
  var epoch: UInt64 { state.withLock { $0.epoch } }

  /// Waits until the executor is settled; returns early if the task is cancelled.
  func waitUntilSettled() async {
    await wait { $0.isSettled }
  }

  /// Waits until the executor has settled again since `epoch`; returns early if the task is
  /// cancelled.
  func waitUntilSettled(after epoch: UInt64) async {
    await wait { $0.isSettled && $0.epoch > epoch }
  }

  private func wait(until condition: @escaping (State) -> Bool) async {
    await parked(
      issue: { state.withLock { $0.waiters.issue() } },
      park: { ticket, continuation in
        state.withLock { state in
          state.waiters.park(ticket, continuation, unless: condition(state) ? () : nil, cancelled: ())
        }
      },
      cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
      cancelled: ())
  }

  /// Runs `call`, a call into the Station's actor from one of this executor's tasks, counting it
  /// as away while it lasts.
  func runAway<Result: Sendable>(_ call: () async -> Result) async -> Result {
    leave()
    let result = await call()
    comeBack()
    return result
  }

  /// Work of the Station's that runs elsewhere has begun: the effects are not settled until it
  /// is over (``comeBack()``).
  func leave() {
    state.withLock { $0.away += 1 }
  }

  /// Work counted with ``leave()`` is over.
  func comeBack() {
    for waiter in state.withLock({ $0.end(counting: \.away) }) { waiter.resume() }
  }

  // MARK: - Tasks asleep on a test clock

  /// A task of the effect in `slot` went to sleep on a test clock (`+1`) or woke (`-1`).
  func clockSleep(_ slot: EffectSlotID, _ change: Int) {
    state.withLock { state in
      let count = state.clockSleepers[slot, default: 0] + change
      state.clockSleepers[slot] = count > 0 ? count : nil
    }
  }

  /// Whether a task of the effect in `slot` sleeps on a test clock.
  func isAsleepOnClock(_ slot: EffectSlotID) -> Bool {
    state.withLock { $0.clockSleepers[slot] != nil }
  }
}

/// The effect the current task runs for, in a watched Station: how a test clock learns which
/// Station and which effect sleep on it.
struct WatchedTask: Sendable {
  let executor: WatchedExecutor
  let slot: EffectSlotID

  @TaskLocal static var current: WatchedTask?
}
