#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Activation

extension StationHost {
  /// Makes the Station of `key`, which the table marked activating: at once from `stored` or the
  /// initial state in memory; on a storage thread, from its folder, for a folder.
  func activate(_ key: Key, from stored: Hosted.State?) {
    switch storage {
    case .memory:
      let state = stored ?? Hosted.State(value: initialState(key), requests: requests)
      activated(
        key, Resident(station: stations.make(self, key, state, nil)), recovered: false,
        reminder: state.reminders.earliest)
    case .folder(let folder):
      activity.begin()
      StorageThreads.shared.run { [self] in
        defer { activity.end() }
        switch recover(key, from: folder) {
        case .success(let (resident, recovered, reminder)):
          activated(key, resident, recovered: recovered, reminder: reminder)
        case .failure(let error): activationFailed(key, error)
        }
      }
    case .store(let store):
      activity.begin()
      spawn { [self] in
        defer { activity.end() }
        switch await recover(key, from: store) {
        case .success(let (resident, recovered, reminder)):
          activated(key, resident, recovered: recovered, reminder: reminder)
        case .failure(let error): activationFailed(key, error)
        }
      }
    }
  }

  /// The feature of `key`, telling the host of its reminders, recording with `recorder` for a key
  /// kept in a folder; or, `replaying`, as its journal is read, telling nothing.
  @usableFromInline
  func hostedFeature(of key: Key, recorder: HostedRecorder<State, Action>?, replaying: Bool = false) -> Hosted
  {
    guard !replaying else {
      return HostedFeature(base: makeFeature(key), remindersChanged: nil, remindersFired: nil)
    }
    let reminders = self.reminders
    let hint = recorder?.hint
    return HostedFeature(
      base: makeFeature(key),
      remindersChanged: { date in
        hint?(date)
        reminders.changed(key, date)
      },
      remindersFired: { count in reminders.fired(count) }, recorder: recorder)
  }

  /// A key's dependencies: the user's, its diagnostics sent to the observer, and, for a key kept
  /// in a folder, what tells its pours' failures.
  @usableFromInline
  func prepare(_ values: inout DependencyValues, for key: Key, log: KeyLog?) {
    prepareDependencies(key, &values)
    if let report = observer.diagnostic {
      values.reporter = { diagnostic in report(key, diagnostic) }
    }
    if let log {
      let text = key.stationKeyText
      values[HostedPoursKey.self] = HostedPours(
        failure: { pour in log.failure(of: pour).map { HostError.storage(key: text, $0) } },
        acknowledged: { pour in await log.acknowledged(pour: pour) })
    }
  }

  /// Recovers `key` from its folder: its Station, whether the folder held a history, and its
  /// earliest reminder. A key with no folder gets its initial state and a log that makes its
  /// folder when it first records: a read creates nothing on disk.
  private func recover(_ key: Key, from folder: FolderStorage<State, Action>) -> Result<
    (Resident, recovered: Bool, reminder: Date?), JournalError
  > {
    let text = KeyFolder.canonical(key.stationKeyText)
    let (path, hashed) = KeyFolder.path(of: text, in: folder.path)
    let digest: StateHash<Hosted.State>? = folder.digest.hash()
    let journal = KeyJournal(
      directory: path, durability: .everyAction, snapshotEvery: .max, hashing: digest,
      codec: hostedCodec!, schema: hostedSchema!, limits: .standard)
    let initial = Hosted.State(value: initialState(key), requests: requests)
    switch HostFolder.locate(key.stationKeyText, at: path, hashed: hashed, in: folder.path) {
    case .failure(let error):
      return .failure(error)
    case .success(false):
      let log = KeyLog(
        sequence: 0, file: nil,
        open: {
          HostFolder.create(text, at: path, hashed: hashed, under: folder.path, journal: journal).map { $0 }
        },
        durability: folder.durability)
      return .success(
        (resident(key, initial, log: log, journal: journal, recording: folder.recording), false, nil))
    case .success(true):
      if hashed, let error = KeyFolder.claim(path, for: text) { return .failure(error) }
      let state: Hosted.State
      let recovered: Journal
      do {
        (state, recovered) = try stations.replay(self, key, journal, initial)
      } catch {
        return .failure(error)
      }
      if let divergence = journal.recovery?.divergence,
        let refusal = folder.digest.refusal(of: divergence, in: path)
      {
        recovered.file?.shutDown(waiting: true)
        return .failure(refusal)
      }
      let log = KeyLog(
        sequence: state.sequence, file: recovered.file, open: nil, durability: folder.durability)
      let station = resident(key, state, log: log, journal: journal, recording: folder.recording)
      journal.reportRecovery(to: station.station)
      let history = state.sequence > 0 || journal.recovery?.snapshotSequence != nil
      return .success((station, history, state.reminders.earliest))
    }
  }

  /// The Station of a key kept in a folder, recording to `log`.
  private func resident(
    _ key: Key, _ state: Hosted.State, log: KeyLog, journal: KeyJournal, recording: Recording<State, Action>
  ) -> Resident {
    resident(key, state, log: log, recording: recording) { state, sequence in
      journal.snapshot(of: state, at: sequence)
    }
  }

  /// The Station of a key kept in a folder or a store, recording to `log`, its snapshots written
  /// by `snapshot` while it is resident, and by `closing` (or `snapshot`) when it passivates.
  func resident(
    _ key: Key, _ state: Hosted.State, log: KeyLog, recording: Recording<State, Action>,
    hint: (@Sendable (Date?) -> Void)? = nil,
    snapshot: @escaping @Sendable (Hosted.State, UInt64) -> SnapshotOutcome,
    closing: (@Sendable (Hosted.State, UInt64) -> SnapshotOutcome)? = nil
  ) -> Resident {
    var recorder = HostedRecorder<State, Action>(
      log: log, encode: recording.codec.encodeAction, snapshot: snapshot,
      snapshotEvery: UInt64(max(1, recording.snapshotEvery)), digest: recording.digest.hash(),
      digestEvery: UInt64(max(1, recording.digest.every)), actionBytes: JournalLimits.standard.actionBytes)
    recorder.hint = hint
    let station = stations.make(self, key, state, recorder)
    let resident = Resident(station: station, log: log, snapshot: closing ?? snapshot)
    log.onFailure { [weak self, weak station] error in
      guard let self, let station else { return }
      self.storageFailed(key, error, station: station)
    }
    return resident
  }

  /// The key's Station is live: the pours that waited are posted, in order, before anyone else's,
  /// and its earliest reminder, `reminder`, is known to the host's timer: what its state says it
  /// waits for, which an index's hint may not (a reminder moved later, or recovered from a
  /// snapshot).
  func activated(_ key: Key, _ resident: Resident, recovered: Bool, reminder: Date?) {
    if let reminder { reminders.changed(key, reminder) }
    let handed = table.withLock { table in
      Self.post(table.activated(key, resident, at: activity.tick), to: resident, of: key, in: &table)
    }
    handed.deliver(resident)
    if recovered { recoveries.add(1, ordering: .relaxed) }
    observer.activated?(key)
    reportCounts()
    // Keys kept above the cap while busy are waited on, to go once idle.
    if table.withLock({ $0.counts.resident > $0.maximumResident }) { trimToCap() }
  }

  /// The key's storage failed: its waiting pours fail, and so do the next until the retry.
  func activationFailed(_ key: Key, _ error: JournalError) {
    let waiting = table.withLock { $0.activationFailed(key, error, retryAt: retryTick()) }
    failWaiting(waiting, key: key, error)
    keyFailed(key, error)
  }

  /// The storage of a live key failed as it wrote: the key fails, its Station is dropped (never
  /// left running ahead of its journal), and it is read again from disk after the retry delay.
  func storageFailed(_ key: Key, _ error: JournalError, station: KeyStation) {
    let (failed, waiting) = table.withLock { table in
      table.failLive(key, error, retryAt: retryTick()) { $0.station === station }
    }
    guard failed else { return }
    station.cancelEffects()
    failWaiting(waiting, key: key, error)
    keyFailed(key, error)
  }

  /// When a key that fails now is read again, on the host's clock.
  private func retryTick() -> Int64 {
    activity.tick(at: lifetime.time.now()) + Int64(lifetime.retryFailedAfter.seconds * 1_000)
  }

  private func failWaiting(_ waiting: [Waiting], key: Key, _ error: JournalError) {
    let failure = HostError.storage(key: key.stationKeyText, error)
    for waiting in waiting {
      switch waiting {
      case .pour(let action, let deferred):
        if case .request(let request) = action { request.ticket?.answer(.failed(error)) }
        deferred.failed(failure)
      case .use(let promise, _): promise.fulfill(.failure(failure))
      }
    }
  }

  private func keyFailed(_ key: Key, _ error: JournalError) {
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
      return handed.deliver(resident)
    }
    let (close, handed) = table.withLock { table in
      let (close, buffer) = table.mayClose(key, at: activity.tick)
      return (close, Self.post(buffer, to: resident, of: key, in: &table))
    }
    guard close else { return handed.deliver(resident) }
    let state = await station.state
    var stored: Hosted.State?
    if let log = resident.log, let write = resident.snapshot {
      // A key never written has nothing on disk, and keeps it so.
      let snapshot: KeyLog.SnapshotWrite? =
        log.hasJournal && state.sequence > 0
        ? { @Sendable in write(state, state.sequence) } : nil
      let error = await withCheckedContinuation { continuation in
        StorageThreads.shared.run { continuation.resume(returning: log.close(snapshot: snapshot)) }
      }
      if let error {
        report(Diagnostic(.other, "key \(key.stationKeyText) passivated: \(error)"), of: key)
      }
      reminders.passivated(key, earliest: state.reminders.earliest)
    } else {
      stored = state
    }
    let again = table.withLock { $0.closed(key, stored: stored) }
    observer.passivated?(key, reason)
    reportCounts()
    if again != nil { activate(key, from: stored) }
    trimToCap()
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
    var uses: [Promise<Result<Resident, HostError>>] = []

    func deliver(_ resident: Resident) {
      for (deferred, task) in posted { deferred.posted(task) }
      for promise in uses { promise.fulfill(.success(resident)) }
    }
  }

  /// Passivates, as soon as they are idle, the keys kept above the cap while they were busy.
  func trimToCap() {
    typealias Keys = [(key: Key, resident: Resident)]
    let (victims, busy) = table.withLock { table -> (Keys, Keys) in
      guard table.counts.resident > table.maximumResident else { return ([], []) }
      return (table.evictions(isIdle: Self.isIdle), table.busyAboveCap(isIdle: Self.isIdle))
    }
    passivate(victims, reason: .evicted)
    for (key, resident) in busy {
      guard awaitedIdle.withLock({ $0.insert(key).inserted }) else { continue }
      spawn { [self] in
        await resident.station.reducePending()
        await resident.station.waitForEffectsToEnd()
        awaitedIdle.withLock { _ = $0.remove(key) }
        trimToCap()
      }
    }
  }

  /// Passivates every key and stops the timer; pours after it are refused with
  /// ``HostError/closed``. Returns once every key is closed: a key kept in a folder has its
  /// snapshot written and its journal closed, all of them at once.
  public func close() async {
    isClosed.store(true, ordering: .relaxed)
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
