#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension StationHost {
  /// Starts the timer again for the next thing due: a sweep of the residents, or a reminder; a
  /// timer already waiting is cancelled.
  ///
  /// On a test clock, the timer's task runs on an executor the clock watches, as a watched
  /// Station's effects do: the clock waits for what the timer does when it wakes (a sweep, the
  /// passivations it starts, reminders poured) before it moves time again, so a test that advances
  /// the clock sees every sweep and reminder due in between, in order.
  ///
  /// The task is made and kept under the timer's lock: two threads restarting the timer at once
  /// (keys activating together, each registering its reminder) leave the one made last, which
  /// planned from what both registered. (Made outside it, the one made first could be kept and the
  /// last cancelled: the kept one slept until a deadline planned before a reminder due now was
  /// registered, and `settle()` waited for a timer that was not coming: an Accounts run hung.)
  func restartTimer() {
    guard !isClosed.load(ordering: .relaxed) else { return }
    let clock = lifetime.time.clock
    timer.withLock { timer in
      timer?.cancel()
      timer = spawn { [weak self] in
        // A timer replaced before it planned leaves the plan to its replacement.
        guard !Task.isCancelled, let delay = self?.planTimer() else { return }
        if delay > 0 { try? await clock.sleep(for: .seconds(delay)) }
        guard !Task.isCancelled else { return }
        await self?.timerFired()
      }
    }
  }

  /// When the timer wakes next, from now: the next sweep or reminder, whichever is first.
  private func planTimer() -> Double {
    let now = lifetime.time.now()
    let sweepAt = activity.nextSweep(after: now, every: lifetime.sweepInterval)
    var wakeAt = min(sweepAt, reminders.nextDeadline ?? sweepAt)
    if activity.isExact, let idleAfter = lifetime.idleAfter,
      let deadline = table.withLock({ $0.nextIdleDeadline(idleAfter: Int64(idleAfter.seconds * 1_000)) })
    {
      // Uses are stamped exactly: the least recently used key is passivated at its deadline.
      wakeAt = min(wakeAt, activity.date(ofTick: deadline))
    }
    let delay = wakeAt.timeIntervalSince(now)
    if delay > 0 { activity.timerAsleep(until: wakeAt) } else { activity.timerAwake() }
    return delay
  }

  /// Starts a task of the host's: on the executor its test clock watches, tracked, if it has one.
  @discardableResult
  func spawn(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
    guard let executor = watcher else { return Task { await body() } }
    return Task(executorPreference: executor) {
      await WatchedTask.$current.withValue(WatchedTask(executor: executor, slot: 0)) {
        executor.taskBegan(0)
        await body()
        executor.taskEnded(effectEnded: false)
      }
    }
  }

  /// What the clock made due: a sweep that passivates idle keys, reminders to pour.
  private func timerFired() async {
    activity.timerAwake()
    let now = lifetime.time.now()
    let tick = activity.advanceTick(to: now)
    let sweeping = activity.takeSweep(at: now, every: lifetime.sweepInterval)
    if sweeping || activity.isExact {
      // The coarse clock of uses lags by up to an interval: a key idle that much longer is
      // passivated, never one idle for less than `idleAfter`. Exact uses need no slack.
      let slack = activity.isExact ? .zero : lifetime.sweepInterval
      let idleAfter = lifetime.idleAfter.map { Int64(($0 + slack).seconds * 1_000) } ?? .max
      let idle = table.withLock { table in
        table.sweep(at: tick, idleAfter: idleAfter) { Self.isIdle($0) }
      }
      passivate(idle, reason: .idle)
    }
    if case .store(let store) = storage, sweeping || !pollsStoredReminders.exchange(true, ordering: .relaxed)
    {
      // At each sweep, and at the first wake: the reminders of keys no host holds.
      await takeStoredReminders(from: store, at: now)
    }
    for key in reminders.takeDue(at: now) {
      let (task, failure) = pour(HostedAction<Action>.fireDue(now), to: key)
      if failure != nil {
        reminders.retry(key, at: now.addingTimeInterval(lifetime.retryFailedAfter.seconds))
        continue
      }
      // Under way until reduced: `settle()` must not return between the key's activation and the
      // reduction that fires its reminders (the Accounts sample read 22 of 50 bonuses paid).
      activity.begin()
      spawn { [activity] in
        await task.reduced()
        activity.end()
      }
    }
    restartTimer()
  }

  /// Returns once every activation and passivation under way has ended and the host's timer has
  /// done what its clock made due: what a test awaits after advancing a ``TestClock`` that
  /// drives the host (see ``HostTime/controlled(by:startingAt:)``).
  ///
  /// ```swift
  /// await clock.advance(by: .seconds(60))
  /// await host.settle()
  /// #expect(host.counts.resident == 0)
  /// ```
  public func settle() async {
    await activity.waitUntilSettled(now: lifetime.time.now)
  }
}

extension Duration {
  /// The duration in seconds.
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  static func / (lhs: Duration, rhs: Duration) -> Double { lhs.seconds / rhs.seconds }
}
