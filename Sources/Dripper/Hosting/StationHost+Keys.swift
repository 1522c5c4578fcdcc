extension StationHost {
  /// The key's Station, made if it is not resident, pinned (kept resident) if `pinning`.
  func useStation(of key: Key, pinning: Bool) async throws(HostError) -> KeyStation {
    if isClosed.load(ordering: .relaxed) {
      throw .refused(key: key.stationKeyText, reason: "the host is closed")
    }
    let promise = Promise<Result<KeyStation, HostError>>()
    let decision = table.withLock { table -> Table.PourDecision in
      let decision = table.use(key, at: activity.tick, isIdle: Self.isIdle)
      switch decision {
      case .post(let resident):
        if pinning { _ = table.pin(key) }
        promise.fulfill(.success(resident.station))
      case .buffer, .activate:
        table.buffer(.use(promise, pinning: pinning), for: key)
      case .fail(let error):
        promise.fulfill(.failure(.storage(key: key.stationKeyText, error)))
      }
      return decision
    }
    if case .activate(let stored, let evicting) = decision {
      activate(key, from: stored)
      passivate(evicting, reason: .evicted)
    }
    guard let result = await promise.value else {
      throw .refused(key: key.stationKeyText, reason: "the read was cancelled")
    }
    return try result.get()
  }

  /// Makes the folder and opens its index of reminders.
  static func openIndex(of folder: FolderStorage<State, Action>) throws(HostError) -> DurableValue<
    ReminderIndex
  > {
    for path in [folder.path, folder.path + "/keys", folder.path + "/reminders"] {
      if let failure = AtomicFile.makeDirectory(path) {
        throw .refused(key: "", reason: "\(path): \(failure.reason)")
      }
    }
    let directory = folder.path + "/reminders/" + KeyFolder.name(of: folder.node)
    do {
      return try DurableValue(
        DurableJournal(directory: directory, snapshotEvery: 1_000, codec: ReminderIndex.codec),
        initialState: [:], feature: ReminderIndex())
    } catch {
      throw .refused(key: "", reason: "the host's reminders: \(error)")
    }
  }

  /// Whether a resident key has nothing to do: no action waiting, no effect.
  static func isIdle(_ resident: Resident) -> Bool {
    resident.station.hasNothingToDo
  }
}

extension Station {
  /// Whether no action waits in the mailbox and no effect runs or waits: what makes a host's key
  /// idle.
  var hasNothingToDo: Bool {
    guard let handler = rootHandler else { return true }
    return handler.mailbox.poured.load(ordering: .relaxed) == handler.taken.load(ordering: .relaxed)
      && handler.effects.snapshot.isIdle
  }
}
