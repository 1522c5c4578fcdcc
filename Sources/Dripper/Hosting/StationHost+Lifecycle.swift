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
      activated(key, Resident(station: stations.make(self, key, state), journal: nil), recovered: false)
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
  @usableFromInline
  func hostedFeature(of key: Key) -> Hosted {
    let reminders = self.reminders
    return HostedFeature(base: makeFeature(key)) { date in reminders.changed(key, date) }
  }

  /// A key's dependencies: the user's, and its diagnostics sent to the observer.
  @usableFromInline
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
      let station = try stations.recover(
        self, key, journal, HostedState(value: initialState(key), requestWindow: requestWindow))
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
    if recovered { recoveries.add(1, ordering: .relaxed) }
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
