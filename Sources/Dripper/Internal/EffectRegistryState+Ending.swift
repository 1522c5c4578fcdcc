/// How a slot ends and how it is cancelled. A slot ends once nothing runs under it: no task, no
/// child, no wait. It then leaves its keys (starting what was queued under them), its sequence and
/// its pour, and lets its parent end in turn. Cancelling marks a slot, cancels its task, and ends
/// what only waited.
extension EffectRegistryState {
  // MARK: - Ending

  /// What a slot does once nothing runs under it.
  private enum NextStep {
    /// Something still keeps it: its task, a child, its wait.
    case keep
    /// It is a sequence with a part left to start.
    case startNextPart
    case end
  }

  /// Mutating only to read the slot in place, without copying its keys and task.
  private mutating func nextStep(for id: EffectSlotID) -> NextStep {
    let found = slots.update(id) { slot in
      (idle: slot.children == 0 && !slot.taskLive, role: slot.role, cancelled: slot.cancelled)
    }
    guard let found, found.idle else { return .keep }
    switch found.role {
    case .waiting, .window, .delivery:
      return .keep
    case .task, .timer, .join:
      if !found.cancelled, !sequences.isEmpty, let sequence = sequences[id],
        sequence.next < sequence.parts.count
      {
        return .startNextPart
      }
      return .end
    }
  }

  /// Ends the slot if nothing keeps it; a sequence starts its next part instead.
  mutating func endIfDone(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    switch nextStep(for: id) {
    case .keep: return
    case .startNextPart: startNextPart(of: id, &after)
    case .end: end(id, &after)
    }
  }

  private mutating func startNextPart(of id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    var sequence = sequences[id]!
    let part = sequence.parts[sequence.next]
    sequence.next += 1
    sequences[id] = sequence
    slots.update(id) { $0.children = 1 }  // A guard, released once the part has started.
    after.start.append(StartWork(work: part, slot: id, skipping: sequence.skipping))
  }

  /// Removes a slot and everything filed for it, then lets its parent end if it was the last
  /// child. Iterative, so that a deep tree does not deepen the stack.
  mutating func end(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    var next: EffectSlotID? = id
    while let id = next {
      next = nil
      guard let slot = slots.remove(id) else { return }
      if slot.role == .waiting { pending[id] = nil }
      slot.keys.forEachElement { key in
        unfile(id, from: key, wasActive: slot.role.isActive && !slot.cancelled, &after)
      }
      if !sequences.isEmpty, let sequence = sequences.removeValue(forKey: id) {
        for key in sequence.upcomingKeys { forgetUpcoming(id, under: key) }
      }
      if !windowOf.isEmpty, windowOf[id] != nil { windowSlotEnded(id, role: slot.role, &after) }
      if slot.isWork { leave(slot.pour, id, &after) }
      let parent = slot.parent
      guard parent != 0, slots.update(parent, { $0.children -= 1 }) != nil else { continue }
      switch nextStep(for: parent) {
      case .keep: continue
      case .startNextPart: startNextPart(of: parent, &after)
      case .end: next = parent
      }
    }
  }

  private mutating func unfile(
    _ id: EffectSlotID, from key: EffectKey, wasActive: Bool, _ after: inout EffectRegistryAftermath<Work>
  ) {
    guard let index = keys.index(forKey: key) else { return }
    keys.values[index].carriers.remove(id)
    if wasActive {
      keys.values[index].active -= 1
      if keys.values[index].active == 0, queues[key] != nil {
        startNextInQueue(of: key, &after)
        return removeIfEmpty(key)
      }
    }
    if keys.values[index].isEmpty { keys.remove(at: index) }
  }

  /// One slot carrying `key` stopped running: starts the next effect queued under it if it was
  /// the last.
  private mutating func release(_ key: EffectKey, _ after: inout EffectRegistryAftermath<Work>) {
    guard let index = keys.index(forKey: key) else { return }
    keys.values[index].active -= 1
    if keys.values[index].active == 0, queues[key] != nil { startNextInQueue(of: key, &after) }
  }

  private mutating func removeIfEmpty(_ key: EffectKey) {
    if let index = keys.index(forKey: key), keys.values[index].isEmpty { keys.remove(at: index) }
  }

  private mutating func forgetUpcoming(_ id: EffectSlotID, under key: EffectKey) {
    guard upcoming[key] != nil else { return }
    upcoming[key]!.remove(id)
    if upcoming[key]!.isEmpty { upcoming[key] = nil }
  }

  // MARK: - Cancelling

  /// Cancels every slot carrying `key`, and skips what would run under it in the parts of a
  /// `concatenate` not yet started.
  mutating func cancel(_ key: EffectKey, _ after: inout EffectRegistryAftermath<Work>) {
    if let waiting = upcoming[key] {
      for id in waiting { sequences[id]?.skipping.insert(key) }
    }
    guard let entry = keys[key] else { return }
    // A namespace is cancelled when its child feature leaves the state.
    let childLeft = key.kind == .namespace
    for id in entry.carriers { cancelSlot(id, childLeft: childLeft, &after) }
  }

  /// Cancels the effects of the children of `parent` at `location` that `isPresent` says are gone,
  /// in time proportional to the keys in use, not to any list.
  mutating func cancelChildren(
    of parent: EffectNamespace, at location: ChildNamespace.Location,
    keeping isPresent: (AnySendableHashable) -> Bool,
    _ after: inout EffectRegistryAftermath<Work>
  ) {
    let absent = keys.keys.filter { key in
      guard key.kind == .namespace, key.namespace.path.count == parent.path.count + 1,
        let child = key.namespace.path.last?.base as? ChildNamespace, child.location == location,
        key.namespace.path.dropLast().elementsEqual(parent.path)
      else { return false }
      return child.id.map { !isPresent($0) } ?? false
    }
    for key in absent { cancel(key, &after) }
  }

  /// Cancels everything running or waiting; new effects may start.
  mutating func cancelAll(_ after: inout EffectRegistryAftermath<Work>) {
    for (id, _) in slots.all { cancelSlot(id, &after) }
  }

  mutating func cancelSlot(
    _ id: EffectSlotID, childLeft: Bool = false, _ after: inout EffectRegistryAftermath<Work>
  ) {
    // Read in place: what a cancelled slot needs, not a copy of the whole slot.
    let found = slots.update(id) {
      slot -> (role: Role, task: EffectTask?, held: SmallList<EffectKey>)? in
      guard !slot.cancelled else { return nil }
      slot.cancelled = true
      slot.childLeft = childLeft
      return (slot.role, slot.task, slot.role.isActive ? slot.keys : SmallList())
    }
    guard let found = found ?? nil else { return }
    // A cancelled effect no longer holds its ids, even while its task winds down: the next effect
    // under them is admitted at once, as after TCA's `cancel(id:)`.
    found.held.forEachElement { key in release(key, &after) }
    switch found.role {
    case .task, .timer:
      if let task = found.task { after.cancel.append(task) }
    case .join:
      sequences[id]?.next = .max
      endIfDone(id, &after)
    case .waiting, .window:
      end(id, &after)
    case .delivery:
      break  // The action is dropped when its turn to be reduced comes.
    }
  }
}
