/// Admission under an id: the four ``EffectPolicy`` values, decided atomically under the lock.
///
/// An admitted effect runs under a *scope*: a guarded join slot carrying the id's key, which keeps
/// the key busy until everything the effect started has ended. Effects waiting their turn
/// (`enqueue`) are waiting slots in the key's queue; the next one starts when the key's last
/// active slot ends.
extension EffectRegistryState {
  enum Admission {
    /// Start the effect under this scope, then release its guard.
    case start(EffectSlotID)
    /// The effect waits its turn in a slot of its own; the registry starts it later.
    case queued
    /// The effect does not run.
    case dropped
  }

  /// Whether something runs, or waits to run, under `key`.
  mutating func isBusy(_ key: EffectKey) -> Bool {
    if (keys[key]?.active ?? 0) > 0 { return true }
    dropEndedFromQueue(of: key)
    return queues[key] != nil
  }

  /// Admits an effect under `key` by `policy`. `scope` describes the scope to reserve (a join
  /// carrying `key`); `work` is what to start later if the effect must wait its turn.
  mutating func admit(
    under key: EffectKey, policy: EffectPolicy, scope: Request, work: @autoclosure () -> Work,
    _ after: inout EffectRegistryAftermath<Work>
  ) -> Admission {
    var scope = scope
    scope.role = .join
    scope.guarded = true
    switch policy {
    case .concurrent:
      break
    case .cancelInFlight:
      cancel(key, &after)
    case .dropNew:
      if isBusy(key) { return .dropped }
    case .enqueue:
      if isBusy(key) {
        scope.role = .waiting
        scope.guarded = false
        guard let waiting = reserve(scope) else { return .dropped }
        pending[waiting] = work()
        queues.modify(key, default: FIFO()) { $0.append(waiting) }
        return .queued
      }
    }
    return reserve(scope).map(Admission.start) ?? .dropped
  }

  /// Starts the oldest effect waiting its turn under `key`, now that nothing runs under it.
  mutating func startNextInQueue(of key: EffectKey, _ after: inout EffectRegistryAftermath<Work>) {
    dropEndedFromQueue(of: key)
    guard let next = queues[key]?.removeFirst() else { return }
    if queues[key]!.isEmpty { queues[key] = nil }
    activate(next, &after)
  }

  /// Turns a waiting slot into a running one and hands its work to the starter.
  mutating func activate(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    guard let slot = slots[id], slot.role == .waiting, let work = pending.removeValue(forKey: id) else {
      return
    }
    slots.update(id) { slot in
      slot.role = .join
      slot.children = 1  // A guard, released once the work has started.
    }
    for key in slot.keys { keys.modify(key, default: KeyEntry()) { $0.active += 1 } }
    after.start.append(StartWork(work: work, slot: id))
  }

  /// Drops, from the front of a key's queue, slots that ended while they waited.
  private mutating func dropEndedFromQueue(of key: EffectKey) {
    while let first = queues[key]?.first, slots[first]?.role != .waiting {
      _ = queues[key]!.removeFirst()
      if queues[key]!.isEmpty { queues[key] = nil }
    }
  }
}
