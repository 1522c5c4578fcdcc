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
  /// carrying `key`); `nested` says whether the effect's context carries `key` already; `work` is
  /// what to start later if the effect must wait its turn.
  ///
  /// An effect put under `key` again inside an admission under `key` (two modifiers on one id, a
  /// parent's modifier over a child's) is judged against the effects outside that admission only:
  /// it never cancels, drops or queues behind the scope it runs in, which would end it before it
  /// starts, as TCA's `testDoubleCancelInFlight` pins. Inside one, `enqueue` admits at once: what
  /// queued behind the outer admission waits for it, and so for this effect.
  mutating func admit(
    under key: EffectKey, policy: EffectPolicy, scope: Request, nested: Bool = false,
    work: @autoclosure () -> Work, _ after: inout EffectRegistryAftermath<Work>
  ) -> Admission {
    var scope = scope
    scope.role = .join
    scope.guarded = true
    // Only an effect whose context carries `key` already can run inside an admission under it.
    let admission = nested ? outermostScope(from: scope.parent, carrying: key) : nil
    switch policy {
    case .concurrent:
      break
    case .cancelInFlight:
      if let admission {
        cancel(key, outside: admission, &after)
      } else {
        cancel(key, &after)
      }
    case .dropNew:
      if let admission {
        if isActive(key, outside: admission) { return .dropped }
      } else if isBusy(key) {
        return .dropped
      }
    case .enqueue:
      if admission == nil, isBusy(key) {
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

  // MARK: - Admissions inside admissions

  /// The outermost slot from `parent` up that carries `key`: the scope of the admission an effect
  /// put under `key` again runs in; `nil` when it runs in none.
  ///
  /// Mutating only to read the slots in place.
  mutating func outermostScope(from parent: EffectSlotID?, carrying key: EffectKey) -> EffectSlotID? {
    var found: EffectSlotID?
    var next = parent ?? 0
    while next != 0, let (up, carries) = slots.update(next, { ($0.parent, $0.keys.contains(key)) }) {
      if carries { found = next }
      next = up
    }
    return found
  }

  /// Whether `scope` is `id` or one of its ancestors.
  mutating func isWithin(_ id: EffectSlotID, _ scope: EffectSlotID) -> Bool {
    var next = id
    while next != 0 {
      if next == scope { return true }
      guard let up = slots.update(next, { $0.parent }) else { return false }
      next = up
    }
    return false
  }

  /// Cancels the slots carrying `key` outside `scope`, and skips `key` in the upcoming parts of the
  /// sequences outside it.
  mutating func cancel(
    _ key: EffectKey, outside scope: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>
  ) {
    if let waiting = upcoming[key] {
      for id in waiting where !isWithin(id, scope) { sequences[id]?.skipping.insert(key) }
    }
    guard let entry = keys[key] else { return }
    for id in entry.carriers where !isWithin(id, scope) { cancelSlot(id, &after) }
  }

  /// Whether a slot carrying `key` runs outside `scope`.
  mutating func isActive(_ key: EffectKey, outside scope: EffectSlotID) -> Bool {
    guard let entry = keys[key] else { return false }
    for id in entry.carriers where !isWithin(id, scope) {
      if slots.update(id, { $0.role.isActive && !$0.cancelled }) == true { return true }
    }
    return false
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
