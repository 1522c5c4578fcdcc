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
///
/// This file holds the slots and how they start; how they end and are cancelled is in
/// `EffectRegistryState+Ending.swift`, admission under an id in `+Admission`, throttle windows in
/// `+Throttle`.
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
    var task: EffectTask?
    /// The pour it belongs to; 0 for bookkeeping (timers, windows).
    let pour: PourNumber
    /// Its parent; 0 for none.
    let parent: EffectSlotID
    var children: Int32 = 0
    var role: Role
    /// Whether its task (for a task or a timer) has yet to end.
    var taskLive: Bool
    var cancelled = false
    /// It was cancelled because its child feature left the state (dismissed, replaced, removed):
    /// what it still pours is reported as it is dropped.
    var childLeft = false

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

  /// The keys that cancel a slot, or `nil` when it was cancelled or has ended.
  func keys(ofLive id: EffectSlotID) -> SmallList<EffectKey>? {
    guard let slot = slots[id], !slot.cancelled else { return nil }
    return slot.keys
  }

  /// Where a slot stands, for an action one of its tasks poured: decided on the actor as the action
  /// is about to be reduced, not as it was poured.
  enum Liveness {
    case live
    /// Cancelled: what it poured is dropped.
    case cancelled
    /// Cancelled because its child feature left the state, and its task told so: what it poured
    /// is dropped, and reported unless the pouring task is cancelled (it was on its way).
    case childLeft
    /// Ended: an action poured through a pour that escaped its effect.
    case ended
  }

  /// Where the slot stands. Mutating only to read the slot in place.
  ///
  /// A slot cancelled before its task was attached is `cancelled`, not `childLeft`: its task,
  /// started off the actor, has not been told yet (``attach(_:to:)`` tells it), so what it pours
  /// meanwhile was on its way, like a pour from a task told after it poured.
  mutating func liveness(_ id: EffectSlotID) -> Liveness {
    slots.update(id) { slot in
      guard slot.cancelled else { return .live }
      return slot.childLeft && slot.task != nil ? .childLeft : .cancelled
    } ?? .ended
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
  mutating func attach(_ task: EffectTask, to id: EffectSlotID) -> EffectTask? {
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

  /// Removes a slot that ended from its pour; resumes what waited for the pour, or for the
  /// Station to be idle, once nothing is left.
  mutating func leave(
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

  /// Cancels every slot of `pour`, and refuses slots of it from now on (the rest of cancelling is in
  /// `EffectRegistryState+Ending.swift`).
  mutating func cancel(pour: PourNumber, _ after: inout EffectRegistryAftermath<Work>) {
    cancelledPours.insert(pour)
    guard let entry = pours[pour] else { return }
    for id in entry.slots { cancelSlot(id, &after) }
  }

  /// Cancels everything and refuses new effects: the Station is gone.
  mutating func close(_ after: inout EffectRegistryAftermath<Work>) {
    isClosed = true
    cancelAll(&after)
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
    /// The pour the work belongs to.
    let pour: PourNumber
  }

  /// The slots doing work themselves (not through children) and not cancelled, in the order they
  /// started: what a test reports as still running. A cancelled slot can pour nothing more, so
  /// that, as in TCA, it is no longer in flight, even while its task winds down.
  var leaves: [Leaf] {
    slots.all.filter {
      $0.element.isWork && $0.element.children == 0 && $0.element.role != .join && !$0.element.cancelled
    }
    .sorted { $0.id.order < $1.id.order }
    .map { Leaf(slot: $0.id, origin: $0.element.origin, role: $0.element.role, pour: $0.element.pour) }
  }
}

extension EffectRegistryState: Sendable where Work: Sendable {}
extension EffectRegistryState.Slot: Sendable where Work: Sendable {}
extension EffectRegistryState.Sequence: Sendable where Work: Sendable {}
extension EffectRegistryState.KeyEntry: Sendable where Work: Sendable {}
extension EffectRegistryState.PourEntry: Sendable where Work: Sendable {}
extension EffectRegistryState.Request: Sendable where Work: Sendable {}
