/// The identity of one unit of a Station's effects in its registry.
@usableFromInline
typealias EffectSlotID = UInt64

/// The pure state machine of a Station's effects: every unit of work an effect tree turns into,
/// which keys cancel it, which pour it belongs to, and what waits for it.
///
/// Every unit is a *slot*, whatever it does: a task running a `run` effect, a `concatenate`
/// waiting for its current part, an effect waiting its turn under an id or the end of a throttle
/// window, an action on its way to the Station. So an id reaches every part that waits, at any
/// depth, and one rule ends them all: a slot ends when its task (if any) has ended and its
/// children have, and then tells its parent.
///
/// Every method runs under the registry's lock and never suspends. What must happen once the lock
/// is released — tasks to cancel, continuations to resume, work to start — is collected in an
/// ``EffectRegistryAftermath``. `Work` is what the registry keeps of an effect that starts later;
/// the registry never looks inside it.
struct EffectRegistryState<Work> {
  /// What a slot does.
  enum Role: Equatable {
    /// A task runs for it: a `run` effect, or a debounce's wait.
    case task
    /// A task that sleeps until a throttle window ends: bookkeeping, not work of any pour.
    case timer
    /// It has no task: it ends when its children have (a `concatenate`, an admission under an id).
    case join
    /// It waits to start: its turn under an id (`enqueue`), or the end of a throttle window. Its
    /// work is in ``pending``.
    case waiting
    /// An action sent off the Station's actor, until it is reduced.
    case delivery
    /// An open throttle window: bookkeeping, not work.
    case window

    /// Whether the slot keeps the keys it carries busy.
    var isActive: Bool { self == .task || self == .join || self == .delivery }
  }

  /// A slot, laid out small: a registry holds one per effect part in flight.
  struct Slot {
    let origin: EffectOrigin
    /// The keys that cancel it: the ids it runs under and the namespaces of its features.
    let keys: SmallList<EffectKey>
    var task: Task<Void, Never>?
    /// The pour it belongs to; 0 for bookkeeping (timers, windows).
    let pour: PourNumber
    /// Its parent; 0 for none.
    let parent: EffectSlotID
    var children: Int32 = 0
    var role: Role
    /// Whether its task (for a task or a timer) has yet to end.
    var taskLive: Bool
    var cancelled = false

    var isWork: Bool { pour != 0 }
  }

  /// Where a slot stands in a `concatenate`: the parts still to start, and the keys they use.
  struct Sequence {
    var parts: [Work]
    var next = 0
    /// Keys used by parts not yet started: cancelling one skips what runs under it in those parts.
    let upcomingKeys: [EffectKey]
    var skipping: Set<EffectKey> = []
  }

  /// The slots carrying a key: cancelling the key cancels them.
  struct KeyEntry {
    var carriers = SlotSet()
    /// How many of them run (rather than wait): the key is busy while any does.
    var active: Int32 = 0

    var isEmpty: Bool { carriers.isEmpty }
  }

  struct PourEntry {
    /// Slots of the pour that are work (not bookkeeping).
    var slots = SlotSet()
    var waiters = SmallList<UnsafeContinuation<Void, Never>>()
  }

  var slots = SlotTable<Slot>()
  var pending: [EffectSlotID: Work] = [:]
  var sequences: [EffectSlotID: Sequence] = [:]
  var keys: [EffectKey: KeyEntry] = [:]
  /// Slots waiting their turn under a key (the `enqueue` policy), oldest first. Slots that ended
  /// while waiting are skipped when the queue is read.
  var queues: [EffectKey: FIFO<EffectSlotID>] = [:]
  /// Sequences whose parts not yet started use a key.
  var upcoming: [EffectKey: SlotSet] = [:]
  private(set) var pours: [PourNumber: PourEntry] = [:]
  private var cancelledPours: Set<PourNumber> = []
  /// The throttle windows, by key (see `EffectRegistryState+Throttle.swift`).
  var windows: [EffectKey: ThrottleWindow] = [:]
  /// The window key of each window, timer and held slot.
  var windowOf: [EffectSlotID: EffectKey] = [:]
  var windowSweepThreshold = 64
  /// How many slots are work: every slot of a pour.
  private(set) var workCount = 0
  var idleWaiters = ParkedWaiters<Void>()
  private(set) var isClosed = false

  init() {}

  /// Whether nothing is tracked: no effect running or waiting, nothing waiting for one. (An open
  /// throttle window is not work; it goes when it ends.)
  var isEmpty: Bool {
    isIdle && pours.isEmpty && idleWaiters.isEmpty && pending.isEmpty && keys.isEmpty && queues.isEmpty
      && upcoming.isEmpty && sequences.isEmpty
  }

  /// Whether no effect is running or waiting to start.
  var isIdle: Bool { workCount == 0 }

  func isCancelled(pour: PourNumber) -> Bool {
    isClosed || cancelledPours.contains(pour)
  }

  /// Whether the slot is there and not cancelled. Mutating only to read the slot in place.
  mutating func isLive(_ id: EffectSlotID) -> Bool {
    slots.update(id) { !$0.cancelled } ?? false
  }

  // MARK: - Starting

  /// What a new slot is.
  struct Request {
    var role: Role
    var pour: PourNumber?
    var parent: EffectSlotID?
    var keys: SmallList<EffectKey>
    var origin: EffectOrigin
    /// Starts the slot with a guard on it, released by ``release(_:_:)`` once the caller has
    /// started the slot's children, so that it cannot end while they are being started.
    var guarded = false
  }

  /// Makes a slot, or returns `nil` when it must not start: the Station is gone, its pour or its
  /// parent was cancelled, or its parent has ended.
  mutating func reserve(_ request: Request) -> EffectSlotID? {
    guard !isClosed else { return nil }
    if let pour = request.pour, cancelledPours.contains(pour) { return nil }
    if let parent = request.parent {
      let adopted = slots.update(parent) { slot in
        guard !slot.cancelled else { return false }
        slot.children += 1
        return true
      }
      guard adopted == true else { return nil }
    }
    let id = slots.insert(
      Slot(
        origin: request.origin, keys: request.keys, task: nil, pour: request.pour ?? 0,
        parent: request.parent ?? 0, children: request.guarded ? 1 : 0, role: request.role,
        taskLive: request.role == .task || request.role == .timer))
    request.keys.forEachElement { key in
      keys.modify(key, default: KeyEntry()) { entry in
        entry.carriers.insert(id)
        if request.role.isActive { entry.active += 1 }
      }
    }
    if let pour = request.pour {
      pours.modify(pour, default: PourEntry()) { $0.slots.insert(id) }
      workCount += 1
    }
    return id
  }

  /// Records the task of a slot; returns it back if it must be cancelled at once.
  mutating func attach(_ task: Task<Void, Never>, to id: EffectSlotID) -> Task<Void, Never>? {
    let cancelled = slots.update(id) { slot in  // Nil: its task ended already.
      slot.task = task
      return slot.cancelled
    }
    return cancelled == true ? task : nil
  }

  /// The slot's task has ended.
  mutating func taskEnded(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    let found: Void? = slots.update(id) { slot in
      slot.taskLive = false
      slot.task = nil
    }
    guard found != nil else { return }
    endIfDone(id, &after)
  }

  /// Removes the guard put on a slot when it was reserved or given work to start.
  mutating func release(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    guard slots.update(id, { $0.children -= 1 }) != nil else { return }
    endIfDone(id, &after)
  }

  /// Ends an action's delivery: it was reduced, or dropped.
  mutating func delivered(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    end(id, &after)
  }

  /// Starts a sequence on `id`, a guarded join: it starts `parts` one after another, each once
  /// the children of the one before have ended.
  mutating func beginSequence(
    _ id: EffectSlotID, parts: [Work], upcomingKeys: [EffectKey], _ after: inout EffectRegistryAftermath<Work>
  ) {
    guard slots.contains(id) else { return }
    sequences[id] = Sequence(parts: parts, upcomingKeys: upcomingKeys)
    for key in upcomingKeys { upcoming.modify(key, default: SlotSet()) { $0.insert(id) } }
    release(id, &after)
  }

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
  private mutating func endIfDone(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
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

  private mutating func leave(
    _ pour: PourNumber, _ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>
  ) {
    let index = pours.index(forKey: pour)!
    pours.values[index].slots.remove(id)
    if pours.values[index].slots.isEmpty {
      after.resume.append(contentsOf: pours.remove(at: index).value.waiters)
    }
    workCount -= 1
    if workCount == 0, !idleWaiters.isEmpty { after.resume.append(contentsOf: idleWaiters.takeAll()) }
  }

  // MARK: - Cancelling

  /// Cancels every slot carrying `key`, and skips what would run under it in the parts of a
  /// `concatenate` not yet started.
  mutating func cancel(_ key: EffectKey, _ after: inout EffectRegistryAftermath<Work>) {
    if let waiting = upcoming[key] {
      for id in waiting { sequences[id]?.skipping.insert(key) }
    }
    guard let entry = keys[key] else { return }
    for id in entry.carriers { cancelSlot(id, &after) }
  }

  /// Cancels the effects of the children of `parent` at `location` whose id is not in `present`,
  /// in time proportional to the keys in use, not to any list.
  mutating func cancelChildren(
    of parent: EffectNamespace, at location: ChildNamespace.Location,
    except present: Set<AnySendableHashable>,
    _ after: inout EffectRegistryAftermath<Work>
  ) {
    let absent = keys.keys.filter { key in
      guard key.kind == .namespace, key.namespace.path.count == parent.path.count + 1,
        let child = key.namespace.path.last?.base as? ChildNamespace, child.location == location,
        key.namespace.path.dropLast().elementsEqual(parent.path)
      else { return false }
      return child.id.map { !present.contains($0) } ?? false
    }
    for key in absent { cancel(key, &after) }
  }

  mutating func cancel(pour: PourNumber, _ after: inout EffectRegistryAftermath<Work>) {
    cancelledPours.insert(pour)
    guard let entry = pours[pour] else { return }
    for id in entry.slots { cancelSlot(id, &after) }
  }

  /// Cancels everything running or waiting; new effects may start.
  mutating func cancelAll(_ after: inout EffectRegistryAftermath<Work>) {
    for (id, _) in slots.all { cancelSlot(id, &after) }
  }

  /// Cancels everything and refuses new effects: the Station is gone.
  mutating func close(_ after: inout EffectRegistryAftermath<Work>) {
    isClosed = true
    cancelAll(&after)
  }

  private mutating func cancelSlot(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    // Read in place: what a cancelled slot needs, not a copy of the whole slot.
    let found = slots.update(id) {
      slot -> (role: Role, task: Task<Void, Never>?, held: SmallList<EffectKey>)? in
      guard !slot.cancelled else { return nil }
      slot.cancelled = true
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

  // MARK: - Waiting

  /// Adds a waiter for the end of a pour's effects; returns `false` if it has none left.
  mutating func waitForPour(
    _ pour: PourNumber, _ continuation: UnsafeContinuation<Void, Never>
  ) -> Bool {
    guard let index = pours.index(forKey: pour) else { return false }
    pours.values[index].waiters.append(continuation)
    return true
  }

  // MARK: - Inspection

  /// A unit of work that has not ended, for a test's report.
  struct Leaf {
    let slot: EffectSlotID
    let origin: EffectOrigin
    let role: Role
  }

  /// The slots doing work themselves (not through children), in the order they started: what a
  /// test reports as still running.
  var leaves: [Leaf] {
    slots.all.filter { $0.element.isWork && $0.element.children == 0 && $0.element.role != .join }
      .sorted { $0.id.order < $1.id.order }
      .map { Leaf(slot: $0.id, origin: $0.element.origin, role: $0.element.role) }
  }
}

/// Work to start under a slot once the lock is released: the next part of a `concatenate`, an
/// effect whose turn came, a throttled effect whose window ended. The slot carries a guard that
/// the starter releases once the work has started.
struct StartWork<Work> {
  let work: Work
  let slot: EffectSlotID
  /// Keys cancelled while the work waited: what would run under them is skipped.
  var skipping: Set<EffectKey> = []
}

/// What the registry must do once its lock is released: cancel tasks, resume continuations,
/// start work. Acting outside the lock keeps resumed tasks from running into it.
struct EffectRegistryAftermath<Work> {
  var cancel = SmallList<Task<Void, Never>>()
  var resume = SmallList<UnsafeContinuation<Void, Never>>()
  var start: [StartWork<Work>] = []

  var isEmpty: Bool { cancel.isEmpty && resume.isEmpty && start.isEmpty }
}

extension EffectRegistryState: Sendable where Work: Sendable {}
extension EffectRegistryState.Slot: Sendable where Work: Sendable {}
extension EffectRegistryState.Sequence: Sendable where Work: Sendable {}
extension EffectRegistryState.KeyEntry: Sendable where Work: Sendable {}
extension EffectRegistryState.PourEntry: Sendable where Work: Sendable {}
extension EffectRegistryState.Request: Sendable where Work: Sendable {}
extension StartWork: Sendable where Work: Sendable {}
extension EffectRegistryAftermath: Sendable where Work: Sendable {}
