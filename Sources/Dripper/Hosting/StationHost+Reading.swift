#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension StationHost {
  /// The key's state, once every action poured into it before this read has been reduced and is
  /// durable: a read never shows what a crash could take back. A key not resident is activated to
  /// be read; a key never written is its initial state, and nothing is made on disk for it.
  ///
  /// - Throws: ``HostError`` when the key's storage failed, or the host is closed.
  public func state(of key: Key) async throws(HostError) -> State {
    let resident = try await useStation(of: key, pinning: false)
    let state = await resident.station.state
    if let log = resident.log, let error = await log.acknowledged(through: state.sequence) {
      throw .storage(key: key.stationKeyText, error)
    }
    return state.value
  }

  /// The key's states as they change, the latest when asked, as ``Station/states`` gives them. While
  /// the stream is read the key stays resident (it is not idle); it ends when the host closes.
  ///
  /// ```swift
  /// for await cart in host.states(of: "cart-7") { render(cart) }
  /// ```
  public func states(of key: Key) -> AsyncStream<State> {
    let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .bufferingNewest(1))
    let forwarding = Task { [self] in
      guard let resident = try? await useStation(of: key, pinning: true) else { return continuation.finish() }
      defer {
        table.withLock { $0.unpin(key, at: activity.tick) }
        trimToCap()
      }
      for await state in resident.station.states {
        // As a read: a state is shown once what made it is durable.
        if let log = resident.log, await log.acknowledged(through: state.sequence) != nil { break }
        continuation.yield(state.value)
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in forwarding.cancel() }
    return stream
  }

  /// Waits until the key's pours have been reduced, their effects have ended and, for a key kept
  /// in a folder, their entries are durable; returns at once for a key that is neither resident
  /// nor being activated (it has nothing under way).
  public func finish(_ key: Key) async {
    let underWay = table.withLock { table -> Bool in
      switch table.slots[key] {
      case .resident?, .activating?: true
      case .passivating?, .passive?, .failed?, nil: false
      }
    }
    guard underWay, let resident = try? await useStation(of: key, pinning: false) else { return }
    await resident.station.reducePending()
    await resident.station.waitForEffectsToEnd()
    _ = await resident.log?.acknowledgedAll()
  }

  /// Cancels every effect of the key, if it is resident.
  public func cancelEffects(of key: Key) {
    table.withLock { $0.resident(key) }?.station.cancelEffects()
  }

  /// What the host holds and has done, now.
  public var counts: HostCounts {
    let table = self.table.withLock { $0.counts }
    let recoveries = self.recoveries.load(ordering: .relaxed)
    let reminders = self.reminders.counts
    var counts = HostCounts()
    counts.resident = table.resident
    counts.activating = table.activating
    counts.passivating = table.passivating
    counts.passive = table.passive
    counts.failed = table.failed
    counts.activations = table.activations
    counts.recoveries = recoveries
    counts.passivations = table.passivations
    counts.evictions = table.evictions
    counts.remindersPending = reminders.pending
    counts.remindersFired = reminders.fired
    return counts
  }

  /// The keys resident now, the most recently used first.
  public var residentKeys: [Key] {
    table.withLock { $0.residentKeys }
  }
}
