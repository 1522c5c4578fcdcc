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
/// falls to zero they are *quiet*: each task has run until it waits for something. They are
/// *settled* when, besides, no task that a test clock woke is still working: one the clock woke
/// that then waits on real time or an answer is running, not settled, until it sleeps on the clock
/// again or ends (see ``WatchedTasks`` for which tasks the executor can follow that far). A test
/// clock waits for the effects to settle before moving time again; a test harness waits for them
/// to be quiet before a step returns, and for them to settle before deciding that an action
/// cannot arrive. No timeout, no guess.
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
    var tasks = WatchedTasks()
    var waiters = ParkedWaiters<Void>()

    var isQuiet: Bool { jobs == 0 && away == 0 }
    var isSettled: Bool { isQuiet && tasks.working == 0 }

    /// Counts a job or call out; returns the waiters to wake if the effects became quiet.
    mutating func end(counting keyPath: WritableKeyPath<State, Int>) -> [UnsafeContinuation<Void, Never>] {
      self[keyPath: keyPath] -= 1
      return isQuiet ? changed() : []
    }

    /// The effects may have become quiet or settled: every waiter looks again.
    mutating func changed() -> [UnsafeContinuation<Void, Never>] {
      if isSettled { epoch += 1 }
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
      resume(state.withLock { $0.end(counting: \.jobs) })
    }
  }

  /// Whether no job is queued or running and no call is away: every task waits for something.
  var isQuiet: Bool { state.withLock { $0.isQuiet } }

  /// Whether the effects are quiet and no task a test clock woke still works.
  var isSettled: Bool { state.withLock { $0.isSettled } }

  /// How many times the executor has settled: a waiter that saw it settled at one epoch waits for
  /// the next with ``waitUntilSettled(after:)``.
  var epoch: UInt64 { state.withLock { $0.epoch } }

  /// Waits until the effects are quiet; returns early if the task is cancelled.
  func waitUntilQuiet() async {
    await wait { $0.isQuiet }
  }

  /// Waits until the effects have settled; returns early if the task is cancelled.
  func waitUntilSettled() async {
    await wait { $0.isSettled }
  }

  /// Waits until the executor has settled again since `epoch`; returns early if the task is
  /// cancelled.
  func waitUntilSettled(after epoch: UInt64) async {
    await wait { $0.isSettled && $0.epoch > epoch }
  }

  /// Waits until `condition` holds: each change wakes every waiter, which looks again.
  private func wait(until condition: @escaping (State) -> Bool) async {
    while !Task.isCancelled {
      await parked(
        issue: { state.withLock { $0.waiters.issue() } },
        park: { ticket, continuation in
          state.withLock { state in
            state.waiters.park(ticket, continuation, unless: condition(state) ? () : nil, cancelled: ())
          }
        },
        cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
        cancelled: ())
      if state.withLock({ condition($0) }) { return }
    }
  }

  private func resume(_ waiters: [UnsafeContinuation<Void, Never>]) {
    for waiter in waiters { waiter.resume() }
  }

  /// Runs `call`, a call into the Station's actor from one of this executor's tasks, counting it
  /// as away while it lasts.
  func runAway<Result: Sendable>(_ call: () async -> Result) async -> Result {
    leave()
    let result = await call()
    comeBack()
    return result
  }

  /// Work of the Station's that runs elsewhere has begun: the effects are not quiet until it is
  /// over (``comeBack()``).
  func leave() {
    state.withLock { $0.away += 1 }
  }

  /// Work counted with ``leave()`` is over.
  func comeBack() {
    resume(state.withLock { $0.end(counting: \.away) })
  }

  // MARK: - Tasks

  /// The calling task, in its own code: the key ``WatchedTasks`` knows it by.
  private static var currentTask: WatchedTasks.Key? {
    withUnsafeCurrentTask { $0?.hashValue }
  }

  /// The calling task, tracked, begins working for the effect in `slot`.
  func taskBegan(_ slot: EffectSlotID) {
    guard let key = Self.currentTask else { return }
    state.withLock { $0.tasks.began(key, slot: slot) }
  }

  /// The calling task, tracked, ends; `effectEnded` when it is its effect's own task.
  func taskEnded(effectEnded: Bool) {
    guard let key = Self.currentTask else { return }
    resume(state.withLock { $0.tasks.ended(key, effectEnded: effectEnded) ? $0.changed() : [] })
  }

  /// The calling task of the effect in `slot` goes to sleep on a test clock.
  func clockSleep(_ slot: EffectSlotID) {
    guard let key = Self.currentTask else { return }
    resume(state.withLock { $0.tasks.slept(key, slot: slot) ? $0.changed() : [] })
  }

  /// The calling task's sleep on a test clock is over: `woken` by the clock, or cancelled.
  func clockAwoke(woken: Bool) {
    guard let key = Self.currentTask else { return }
    state.withLock { $0.tasks.awoke(key, woken: woken) }
  }

  /// Runs `body`, in which the calling task waits for tracked children of its own.
  func joining<Result>(_ body: () async throws -> Result) async rethrows -> Result {
    guard let key = Self.currentTask else { return try await body() }
    state.withLock { $0.tasks.join(key, true) }
    defer { state.withLock { $0.tasks.join(key, false) } }
    return try await body()
  }

  /// Whether only moving a test clock can make the effect in `slot` do anything.
  func waitsOnlyForTime(_ slot: EffectSlotID) -> Bool {
    state.withLock { $0.tasks.waitsOnlyForTime(slot) }
  }
}

/// The effect the current task runs for, in a watched Station: how a test clock learns which
/// Station and which effect sleep on it.
struct WatchedTask: Sendable {
  let executor: WatchedExecutor
  let slot: EffectSlotID

  @TaskLocal static var current: WatchedTask?

  /// Runs `body` as a tracked task of the current effect, if it runs in a watched Station: the
  /// executor then knows when it begins and ends (`withTimeout`'s operation and timer).
  static func tracking<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
    guard let current else { return try await body() }
    current.executor.taskBegan(current.slot)
    defer { current.executor.taskEnded(effectEnded: false) }
    return try await body()
  }

  /// Runs `body`, in which the current task waits for tracked children (`withTimeout`'s group).
  static func joining<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
    guard let current else { return try await body() }
    return try await current.executor.joining(body)
  }
}
