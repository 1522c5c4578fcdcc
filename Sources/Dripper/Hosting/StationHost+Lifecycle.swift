import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// MARK: - Activation

extension StationHost {
  /// Makes the Station of `key`, which the table marked activating: at once from `stored` or the
  /// initial state in memory; on a thread that may block, from its folder, for a folder.
  func activate(_ key: Key, from stored: Hosted.State?) {
    switch storage {
    case .memory:
      let state = stored ?? HostedState(value: initialState(key), requestWindow: requestWindow)
      let station = KeyStation(initialState: state) {
        hostedFeature(of: key)
      } withDependencies: { values in
        self.prepare(&values, for: key)
      }
      activated(key, Resident(station: station, journal: nil), recovered: false)
    case .folder(let folder):
      activity.begin()
      DispatchQueue.global().async { [self] in
        defer { activity.end() }
        switch recover(key, from: folder) {
        case .success(let (resident, recovered)): activated(key, resident, recovered: recovered)
        case .failure(let error): activationFailed(key, error)
        }
      }
    }
  }

  /// The feature of `key`, telling the host of its reminders.
  func hostedFeature(of key: Key) -> Hosted {
    let reminders = self.reminders
    return HostedFeature(base: makeFeature(key)) { date in reminders.changed(key, date) }
  }

  /// A key's dependencies: the user's, and its diagnostics sent to the observer.
  func prepare(_ values: inout DependencyValues, for key: Key) {
    prepareDependencies(key, &values)
    if let report = observer.diagnostic {
      values.reporter = { diagnostic in report(key, diagnostic) }
    }
  }

  /// Recovers `key` from its folder: its Station, and whether the folder held a history.
  private func recover(_ key: Key, from folder: FolderStorage<State, Action>) -> Result<
    (Resident, Bool), JournalError
  > {
    let text = key.stationKeyText
    let (path, hashed) = KeyFolder.path(of: text, in: folder.path)
    if let error = KeyFolder.make(path, under: folder.path) { return .failure(error) }
    if hashed, let error = KeyFolder.claim(path, for: text) { return .failure(error) }
    let journal = KeyJournal(
      directory: path, durability: folder.durability, snapshotEvery: folder.snapshotEvery, hashing: nil,
      codec: hostedCodec!, schema: hostedSchema!, limits: .standard)
    do {
      let station = try KeyStation.recovering(
        from: journal, initialState: HostedState(value: initialState(key), requestWindow: requestWindow)
      ) {
        hostedFeature(of: key)
      } withDependencies: { values in
        self.prepare(&values, for: key)
      }
      let recovered = (journal.recovery?.lastSequence ?? 0) > 0 || journal.recovery?.snapshotSequence != nil
      return .success((Resident(station: station, journal: journal), recovered))
    } catch {
      return .failure(error)
    }
  }

  /// The key's Station is live: the pours that waited are posted, in order, before anyone else's.
  func activated(_ key: Key, _ resident: Resident, recovered: Bool) {
    let handed = table.withLock { table in
      Self.post(table.activated(key, resident, at: activity.tick), to: resident, of: key, in: &table)
    }
    handed.deliver(resident.station)
    if recovered { extraCounts.withLock { $0.recoveries += 1 } }
    observer.activated?(key)
    reportCounts()
  }

  /// The key's storage failed: its waiting pours fail, and so do the next until the retry.
  func activationFailed(_ key: Key, _ error: JournalError) {
    let retryAt = activity.tick + Int64(lifetime.retryFailedAfter.seconds * 1_000)
    let waiting = table.withLock { $0.activationFailed(key, error, retryAt: retryAt) }
    let failure = HostError.storage(key: key.stationKeyText, error)
    for waiting in waiting {
      switch waiting {
      case .pour(_, let deferred): deferred.failed(failure)
      case .use(let promise, _): promise.fulfill(.failure(failure))
      }
    }
    observer.failed?(key, error)
    report(
      Diagnostic(
        .other, "key \(key.stationKeyText) failed: \(error); its pours fail until it is tried again"), of: key
    )
    reportCounts()
  }

  func report(_ diagnostic: Diagnostic, of key: Key) {
    if let report = observer.diagnostic {
      report(key, diagnostic)
    } else {
      StandardError.print(diagnostic.description)
    }
  }

  func reportCounts() {
    if let report = observer.counts { report(counts) }
  }
}

// MARK: - Passivation

extension StationHost {
  /// Passivates keys the table marked passivating, each on a task of its own.
  func passivate(_ victims: [(key: Key, resident: Resident)], reason: PassivationReason) {
    for (key, resident) in victims {
      activity.begin()
      spawn { [self] in
        await passivateNow(key, resident, reason: reason)
        activity.end()
      }
    }
  }

  /// Passivates `key` now, if it is resident, and returns once it is closed.
  ///
  /// A key passivated while a pour or an effect keeps it busy stays resident.
  public func passivate(_ key: Key) async {
    guard let resident = table.withLock({ $0.passivate(key) }) else { return }
    activity.begin()
    await passivateNow(key, resident, reason: .requested)
    activity.end()
  }

  /// Closes a passivating key's Station: once its pours are reduced, if it has nothing to do (or
  /// the host closes), its state goes to storage and the Station is released. A pour that came
  /// meanwhile makes it resident again, or, if it came while the Station closed, activates it anew.
  func passivateNow(_ key: Key, _ resident: Resident, reason: PassivationReason) async {
    let station = resident.station
    await station.reducePending()
    if reason == .closing {
      station.cancelEffects()
      await station.waitForEffectsToEnd()
    } else if !station.hasNothingToDo {
      let handed = table.withLock { table in
        Self.post(table.cancelPassivation(key, at: activity.tick), to: resident, of: key, in: &table)
      }
      return handed.deliver(station)
    }
    let (close, handed) = table.withLock { table in
      let (close, buffer) = table.mayClose(key, at: activity.tick)
      return (close, Self.post(buffer, to: resident, of: key, in: &table))
    }
    guard close else { return handed.deliver(station) }
    let state = await station.state
    var stored: Hosted.State?
    switch storage {
    case .memory:
      stored = state
    case .folder:
      if let journal = resident.journal {
        let error = await withCheckedContinuation { continuation in
          DispatchQueue.global().async { continuation.resume(returning: journal.snapshotAndClose(state)) }
        }
        if let error { report(Diagnostic(.other, "key \(key.stationKeyText) passivated: \(error)"), of: key) }
      }
      reminders.passivated(key, earliest: state.earliestReminder)
    }
    let again = table.withLock { $0.closed(key, stored: stored) }
    observer.passivated?(key, reason)
    reportCounts()
    if again != nil { activate(key, from: stored) }
  }

  /// Posts the pours that waited to a key's Station, under the host's lock, in the same section
  /// as the change that made the key resident: a pour made after it, which the lock orders after
  /// them, must not overtake them. Returns what to hand out once the lock is released.
  static func post(
    _ waiting: [Waiting], to resident: Resident, of key: Key, in table: inout Table
  ) -> Handed {
    var handed = Handed()
    for waiting in waiting {
      switch waiting {
      case .pour(let action, let deferred): handed.posted.append((deferred, resident.station.pour(action)))
      case .use(let promise, let pinning):
        if pinning { _ = table.pin(key) }
        handed.uses.append(promise)
      }
    }
    return handed
  }

  /// What waited for a key, posted: the tasks to hand to the deferred pours and the Station to the
  /// reads, after the lock.
  struct Handed {
    var posted: [(DeferredPour, PourTask)] = []
    var uses: [Promise<Result<KeyStation, HostError>>] = []

    func deliver(_ station: KeyStation) {
      for (deferred, task) in posted { deferred.posted(task) }
      for promise in uses { promise.fulfill(.success(station)) }
    }
  }

  /// Passivates every key and stops the timer; pours after it are refused. Returns once every key
  /// is closed: a key kept in a folder has its snapshot written and its journal closed.
  public func close() async {
    extraCounts.withLock { $0.closed = true }
    timer.withLock { $0 }?.cancel()
    while true {
      let residents = table.withLock { table in
        table.residentKeys.compactMap { key in table.passivate(key).map { (key, $0) } }
      }
      await withTaskGroup(of: Void.self) { group in
        for (key, resident) in residents {
          group.addTask { await self.passivateNow(key, resident, reason: .closing) }
        }
      }
      await activity.waitUntilNothingIsUnderWay()
      if table.withLock({ $0.counts.resident + $0.counts.activating + $0.counts.passivating }) == 0 { break }
    }
    if let error = reminders.close() {
      StandardError.print("dripper: the host's reminders were not closed: \(error)")
    }
  }
}

// MARK: - Time

extension StationHost {
  /// Starts the timer again for the next thing due: a sweep of the residents, or a reminder; a
  /// timer already waiting is cancelled.
  ///
  /// On a test clock, the timer's task runs on an executor the clock watches, as a watched
  /// Station's effects do: the clock waits for what the timer does when it wakes (a sweep, the
  /// passivations it starts, reminders poured) before it moves time again, so a test that advances
  /// the clock sees every sweep and reminder due in between, in order.
  func restartTimer() {
    guard !extraCounts.withLock({ $0.closed }) else { return }
    let clock = lifetime.time.clock
    let task = spawn { [weak self] in
      guard let delay = self?.planTimer() else { return }
      if delay > 0 { try? await clock.sleep(for: .seconds(delay)) }
      guard !Task.isCancelled else { return }
      await self?.timerFired()
    }
    timer.withLock { timer in
      timer?.cancel()
      timer = task
    }
  }

  /// When the timer wakes next, from now: the next sweep or reminder, whichever is first.
  private func planTimer() -> Double {
    let now = lifetime.time.now()
    let sweepAt = activity.nextSweep(after: now, every: lifetime.sweepInterval)
    let wakeAt = min(sweepAt, reminders.nextDeadline ?? sweepAt)
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
    if activity.takeSweep(at: now, every: lifetime.sweepInterval) {
      // The coarse clock of uses lags by up to an interval: a key idle that much longer is
      // passivated, never one idle for less than `idleAfter`.
      let idleAfter = lifetime.idleAfter.map { Int64(($0 + lifetime.sweepInterval).seconds * 1_000) } ?? .max
      let idle = table.withLock { table in
        table.sweep(at: tick, idleAfter: idleAfter) { Self.isIdle($0) }
      }
      passivate(idle, reason: .idle)
    }
    for key in reminders.takeDue(at: now) {
      if pour(.fireDue(now), to: key).failure != nil {
        reminders.retry(key, at: now.addingTimeInterval(lifetime.retryFailedAfter.seconds))
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

/// What a host has under way: activations and passivations in flight, and when its timer sleeps
/// until, so that ``StationHost/settle()`` knows when nothing is left to happen now.
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
  private let ticks = Atomic<Int64>(0)

  init(start: Date) {
    self.start = start
  }

  /// The host's coarse clock: milliseconds from its start to its timer's last wake. One relaxed
  /// load, which a pour can afford where a clock's reading would double its cost.
  var tick: Int64 { ticks.load(ordering: .relaxed) }

  /// Moves the coarse clock to `now`; returns it.
  func advanceTick(to now: Date) -> Int64 {
    let tick = Int64((now.timeIntervalSince(start) * 1_000).rounded(.down))
    ticks.max(tick, ordering: .relaxed)
    return ticks.load(ordering: .relaxed)
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
