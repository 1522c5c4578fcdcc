#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension StationHost {
  /// The key's state, once every action poured into it before this read has been reduced. A key
  /// not resident is activated to be read.
  ///
  /// - Throws: ``HostError`` when the key's storage failed, or the host is closed.
  public func state(of key: Key) async throws(HostError) -> State {
    let station = try await useStation(of: key, pinning: false)
    return await station.state.value
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
      guard let station = try? await useStation(of: key, pinning: true) else { return continuation.finish() }
      defer { table.withLock { $0.unpin(key, at: activity.tick) } }
      for await state in station.states {
        continuation.yield(state.value)
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in forwarding.cancel() }
    return stream
  }

  /// Waits until the key's pours have been reduced and their effects have ended; returns at once
  /// for a key that is not resident (it has no effect running).
  public func finish(_ key: Key) async {
    guard let station = table.withLock({ $0.resident(key) })?.station else { return }
    await station.reducePending()
    await station.waitForEffectsToEnd()
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
