import Dispatch

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
    let (posted, uses) = table.withLock { table in
      var posted: [(DeferredPour, PourTask)] = []
      var uses: [Promise<Result<KeyStation, HostError>>] = []
      for waiting in table.activated(key, resident) {
        switch waiting {
        case .pour(let action, let deferred): posted.append((deferred, resident.station.pour(action)))
        case .use(let promise, let pinning):
          if pinning { _ = table.pin(key) }
          uses.append(promise)
        }
      }
      return (posted, uses)
    }
    for (deferred, task) in posted { deferred.posted(task) }
    for promise in uses { promise.fulfill(.success(resident.station)) }
    if recovered { extraCounts.withLock { $0.recoveries += 1 } }
    observer.activated?(key)
    reportCounts()
  }

  /// The key's storage failed: its waiting pours fail, and so do the next until the retry.
  func activationFailed(_ key: Key, _ error: JournalError) {
    let sweeps = UInt64(max(1, (lifetime.retryFailedAfter / lifetime.sweepInterval).rounded(.up)))
    let waiting = table.withLock { $0.activationFailed(key, error, retryAfter: sweeps) }
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
      Task { [self] in
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
      return keepResident(key, resident, table.withLock { $0.cancelPassivation(key) })
    }
    let (close, buffer) = table.withLock { $0.mayClose(key) }
    guard close else { return keepResident(key, resident, buffer) }
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

  /// A passivation given up: the pours that waited are posted to the Station, resident again.
  private func keepResident(_ key: Key, _ resident: Resident, _ buffer: [Waiting]) {
    guard !buffer.isEmpty else { return }
    let (posted, uses) = table.withLock { table in
      var posted: [(DeferredPour, PourTask)] = []
      var uses: [Promise<Result<KeyStation, HostError>>] = []
      for waiting in buffer {
        switch waiting {
        case .pour(let action, let deferred): posted.append((deferred, resident.station.pour(action)))
        case .use(let promise, let pinning):
          if pinning { _ = table.pin(key) }
          uses.append(promise)
        }
      }
      return (posted, uses)
    }
    for (deferred, task) in posted { deferred.posted(task) }
    for promise in uses { promise.fulfill(.success(resident.station)) }
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
  /// Starts the timer again for the next thing due: a sweep of the residents, or a reminder.
  func restartTimer() {
    guard !extraCounts.withLock({ $0.closed }) else { return }
    let time = lifetime.time
    let now = time.now()
    let sweepAt = activity.nextSweep(after: now, every: lifetime.sweepInterval)
    let wakeAt = min(sweepAt, reminders.nextDeadline ?? sweepAt)
    let delay = Duration.seconds(max(0, wakeAt.timeIntervalSince(now)))
    activity.timerAsleep(until: wakeAt)
    let task = Task { [weak self] in
      try? await time.clock.sleep(for: delay)
      guard !Task.isCancelled, let self else { return }
      activity.timerAwake()
      await timerFired()
    }
    timer.withLock { timer in
      timer?.cancel()
      timer = task
    }
  }

  /// What the clock made due: a sweep that passivates idle keys, reminders to pour.
  private func timerFired() async {
    let now = lifetime.time.now()
    if activity.takeSweep(at: now, every: lifetime.sweepInterval) {
      let idle = table.withLock { table in
        table.sweep(idleSweeps: HostLifetime.sweepsPerIdlePeriod) { Self.isIdle($0) }
      }
      if lifetime.idleAfter != nil { passivate(idle, reason: .idle) } else { assert(idle.isEmpty) }
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
