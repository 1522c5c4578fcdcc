#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension StationHost {
  /// The key's Station, made if it is not resident, pinned (kept resident) if `pinning`.
  func useStation(of key: Key, pinning: Bool) async throws(HostError) -> Resident {
    if isClosed.load(ordering: .relaxed) { throw .closed }
    let promise = Promise<Result<Resident, HostError>>()
    let decision = table.withLock { table -> Table.PourDecision in
      let decision = use(key, in: &table)
      switch decision {
      case .post(let resident):
        if pinning { _ = table.pin(key) }
        promise.fulfill(.success(resident))
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

  /// Whether `key` has reduced an action, here or in storage: a key only read has not. Reads
  /// nothing into memory for a key that is not resident, and creates nothing.
  ///
  /// ```swift
  /// guard try await host.exists(id) else { return .notFound }   // no folder made for an unknown id
  /// ```
  ///
  /// - Throws: ``HostError/storage(key:_:)`` when the key failed, or its folder cannot be read.
  public func exists(_ key: Key) async throws(HostError) -> Bool {
    let place = table.withLock { table -> KeyPlace<KeyStation> in
      if let resident = table.resident(key) { return .resident(resident.station) }
      switch table.slots[key] {
      case .passive(let stored)?: return .stored(stored.sequence > 0)
      case .failed(let error, _)?: return .failed(error)
      case .activating?, .passivating?, .resident?, nil: break
      }
      switch storage {
      case .memory: return .stored(false)
      case .folder(let folder): return .folder(folder.path)
      case .store(let store): return .store(store.store)
      }
    }
    switch place {
    case .resident(let station):
      return await station.state.sequence > 0
    case .stored(let exists):
      return exists
    case .failed(let error):
      throw .storage(key: key.stationKeyText, error)
    case .folder(let root):
      // A key passivating or activating is on disk already, or about to be read from it.
      let text = key.stationKeyText
      let result = await withCheckedContinuation { continuation in
        StorageThreads.shared.run { continuation.resume(returning: HostFolder.exists(text, in: root)) }
      }
      switch result {
      case .success(let exists): return exists
      case .failure(let error): throw .storage(key: text, error)
      }
    case .store(let store):
      do {
        return try await store.exists(KeyFolder.canonical(key.stationKeyText))
      } catch {
        throw .storage(key: key.stationKeyText, error)
      }
    }
  }

  /// Makes the folder, and its parents, and opens its index of reminders.
  static func openIndex(of folder: FolderStorage<State, Action>) throws(HostError) -> DurableValue<
    ReminderIndex
  > {
    if HostFolder.kind(of: folder.path + "/" + FolderKeyStore.marker) == .other {
      throw .hostStorage(
        "\(folder.path): a FolderKeyStore's folder; a host keeps its keys there with .store(FolderKeyStore(folder:), …)"
      )
    }
    if let (path, failure) = AtomicFile.makeDirectories(folder.path) {
      throw .hostStorage("\(path): \(failure.reason)")
    }
    for path in [folder.path + "/keys", folder.path + "/reminders"] {
      if let failure = AtomicFile.makeDirectory(path) { throw .hostStorage("\(path): \(failure.reason)") }
    }
    let directory = folder.path + "/reminders/" + KeyFolder.name(of: folder.node)
    let legacy = folder.path + "/reminders/" + KeyFolder.legacyName(of: folder.node)
    if directory != legacy, HostFolder.kind(of: directory) == .missing,
      HostFolder.kind(of: legacy) == .directory
    {
      // Named as an earlier Dripper named it: it keeps its hints under its new name.
      if rename(legacy, directory) != 0 {
        throw .hostStorage("\(legacy): \(AtomicFile.Failure(code: errno).reason)")
      }
    }
    do {
      return try DurableValue(
        DurableJournal(directory: directory, snapshotEvery: 1_000, codec: ReminderIndex.codec),
        initialState: [:], feature: ReminderIndex())
    } catch {
      throw .hostStorage("its reminders: \(error)")
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

/// Where ``StationHost/exists(_:)`` finds a key.
private enum KeyPlace<KeyStation> {
  case resident(KeyStation)
  case stored(Bool)
  case folder(String)
  case store(any KeyStore)
  case failed(JournalError)
}
