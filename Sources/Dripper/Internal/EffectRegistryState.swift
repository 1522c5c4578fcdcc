/// The identity of one running effect in a Station's registry.
typealias EffectSlotID = UInt64

/// The identity of the pour an effect belongs to: the sequence number of the action poured into the
/// Station's mailbox whose reduction started it, directly or through actions its effects poured.
@usableFromInline
typealias EffectGroupID = UInt64

/// Where an effect was written: shown when a test ends with the effect still running.
struct EffectOrigin: Sendable, CustomStringConvertible {
  let fileID: StaticString
  let line: UInt

  var description: String { "\(fileID):\(line)" }
}

/// Work that could not start yet: an effect queued behind another with the same id (the `enqueue`
/// policy), or held back by `throttle`.
struct PendingEffect: Sendable {
  let group: EffectGroupID
  let ids: [EffectKey]
  let origin: EffectOrigin
  /// Spawns the effect's task once the registry has reserved its slot.
  let start: @Sendable (EffectToken) -> Task<Void, Never>
}

/// The pure state machine of ``EffectRegistry``: every method runs under the registry's lock, never
/// suspends, and returns what must happen once the lock is released in an ``EffectRegistryAftermath``.
struct EffectRegistryState {
  struct Slot {
    var task: Task<Void, Never>?
    /// The keys cancelling this effect: its ids and the namespaces of the features it runs in.
    let ids: [EffectKey]
    /// Keys used by parts of a `concatenate` that have not started: cancelling one of them records
    /// it here so that the part is skipped when its turn comes.
    let heldIDs: [EffectKey]
    let group: EffectGroupID
    let origin: EffectOrigin
    var cancelled = false
    var cancelledHeldIDs: Set<EffectKey> = []
    /// A container effect parked until this one finishes, and unparked in the same step.
    var waiter: EffectSlotID?
    /// How many of the effect's tasks wait on a `TestClock` (or, for a hold, always 1): a parked
    /// effect cannot make progress until time moves, so it does not count as running.
    var parked = 0
  }

  struct Group {
    var live = 0
    var waiters: [UnsafeContinuation<Void, Never>] = []
  }

  /// An entry in the queue of an id under the `enqueue` policy.
  enum Waiting {
    /// Spawn this effect when its turn comes.
    case spawn(PendingEffect)
    /// Resume a container effect (`parent`, parked meanwhile) waiting for its turn, with a hold on
    /// the id, or with `nil` if the id was cancelled first.
    case resume(
      UnsafeContinuation<EffectToken?, Never>, group: EffectGroupID, ids: [EffectKey],
      parent: EffectSlotID)

    var group: EffectGroupID {
      switch self {
      case .spawn(let pending): pending.group
      case .resume(_, let group, _, _): group
      }
    }
  }

  /// The throttle of one id: when its last effect started, and what waits for the window to end.
  struct Throttle {
    /// The time since the last effect under this id started, on the clock the throttle uses.
    var elapsed: @Sendable () -> Duration
    /// The slot of the task that sleeps until the window ends, while an effect is held.
    var timer: EffectSlotID?
    var held: PendingEffect?
  }

  private(set) var slots: [EffectSlotID: Slot] = [:]
  private var nextSlot: EffectSlotID = 1
  private var index: [EffectKey: Set<EffectSlotID>] = [:]
  private(set) var groups: [EffectGroupID: Group] = [:]
  private var queues: [EffectKey: [Waiting]] = [:]
  private var throttles: [EffectKey: Throttle] = [:]
  private var cancelledGroups: Set<EffectGroupID> = []
  /// Live slots that are not parked.
  private(set) var running = 0
  private var waiters: [UInt64: Waiter] = [:]
  private var nextWaiter: UInt64 = 1
  private(set) var isClosed = false

  /// Whether nothing is tracked: no effect running, queued or held, no waiter parked. (A throttled id
  /// remembers when its last effect started, which is not work.)
  var isEmpty: Bool {
    isIdle && index.isEmpty && groups.isEmpty && waiters.isEmpty
  }

  /// Whether no effect is running, queued or held by a throttle.
  var isIdle: Bool { slots.isEmpty && queues.isEmpty && !throttles.values.contains { $0.held != nil } }

  func isBusy(_ key: EffectKey) -> Bool {
    index[key]?.contains { slots[$0]?.ids.contains(key) == true } == true
      || queues[key]?.isEmpty == false
  }

  func isCancelled(group: EffectGroupID) -> Bool {
    isClosed || cancelledGroups.contains(group)
  }

  var liveOrigins: [EffectOrigin] { slots.values.filter { $0.task != nil }.map(\.origin) }

  /// Where the effects that are neither finished nor parked were written, in the order they
  /// started.
  var runningOrigins: [EffectOrigin] {
    slots.sorted { $0.key < $1.key }.filter { $0.value.parked == 0 }.map(\.value.origin)
  }

  // MARK: - Slots

  /// Reserves a slot for an effect about to start, or returns `nil` when it must not start because
  /// the Station is gone or its pour was cancelled.
  mutating func reserve(
    group: EffectGroupID, ids: [EffectKey], heldIDs: [EffectKey] = [], origin: EffectOrigin,
    isHold: Bool = false
  ) -> EffectSlotID? {
    guard !isCancelled(group: group) else { return nil }
    let id = nextSlot
    nextSlot += 1
    slots[id] = Slot(
      ids: ids, heldIDs: heldIDs, group: group, origin: origin, parked: isHold ? 1 : 0)
    for key in ids { index[key, default: []].insert(id) }
    for key in heldIDs { index[key, default: []].insert(id) }
    groups[group, default: Group()].live += 1
    if !isHold { running += 1 }
    return id
  }

  /// Records the task of a reserved slot; returns it back if it must be cancelled at once.
  mutating func attach(_ task: Task<Void, Never>, to id: EffectSlotID) -> Task<Void, Never>? {
    guard slots[id] != nil else { return nil }  // It already finished.
    slots[id]!.task = task
    return slots[id]!.cancelled ? task : nil
  }

  mutating func finish(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath) {
    guard let slot = slots.removeValue(forKey: id) else { return }
    if slot.parked == 0 { running -= 1 }
    if let waiter = slot.waiter { unpark(waiter) }
    for key in slot.ids { unindex(id, from: key, &after) }
    for key in slot.heldIDs { unindex(id, from: key, &after) }
    leave(slot.group, &after)
    wakeWaitersIfQuiet(&after)
  }

  /// Whether a `concatenate` part that uses these keys was cancelled while waiting for its turn.
  func isPartCancelled(_ keys: [EffectKey], in id: EffectSlotID) -> Bool {
    guard let slot = slots[id] else { return true }
    return slot.cancelled || keys.contains { slot.cancelledHeldIDs.contains($0) }
  }

  mutating func park(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath) {
    guard slots[id] != nil else { return }
    slots[id]!.parked += 1
    if slots[id]!.parked == 1 {
      running -= 1
      wakeWaitersIfQuiet(&after)
    }
  }

  /// Parks `parent` until `child` finishes, which unparks it; returns `false` if `child` is done.
  mutating func park(
    _ parent: EffectSlotID, untilFinished child: EffectSlotID, _ after: inout EffectRegistryAftermath
  ) -> Bool {
    guard slots[child] != nil, slots[parent] != nil else { return false }
    slots[child]!.waiter = parent
    park(parent, &after)
    return true
  }

  mutating func unpark(_ id: EffectSlotID) {
    guard slots[id] != nil, slots[id]!.parked > 0 else { return }
    slots[id]!.parked -= 1
    if slots[id]!.parked == 0 { running += 1 }
  }

  private mutating func unindex(
    _ id: EffectSlotID, from key: EffectKey, _ after: inout EffectRegistryAftermath
  ) {
    guard var members = index[key] else { return }
    members.remove(id)
    if members.isEmpty {
      index[key] = nil
      startNextInQueue(of: key, &after)
    } else {
      index[key] = members
      if !isBusyWithOwnEffects(key) { startNextInQueue(of: key, &after) }
    }
  }

  private func isBusyWithOwnEffects(_ key: EffectKey) -> Bool {
    index[key]?.contains { slots[$0]?.ids.contains(key) == true } == true
  }

  private mutating func leave(_ group: EffectGroupID, _ after: inout EffectRegistryAftermath) {
    groups[group]!.live -= 1
    guard groups[group]!.live == 0 else { return }
    after.resume.append(contentsOf: groups.removeValue(forKey: group)!.waiters)
  }

  private mutating func wakeWaitersIfQuiet(_ after: inout EffectRegistryAftermath) {
    guard !waiters.isEmpty else { return }
    for (number, waiter) in waiters {
      guard case .waiting(let continuation, let condition) = waiter, holds(condition) else { continue }
      waiters[number] = nil
      after.resume.append(continuation)
    }
  }

  // MARK: - Queues (the enqueue policy)

  /// Admits an effect under `key` when nothing runs under it, returning a hold on `key` that keeps
  /// it busy until the caller has started the effect's work and finishes the hold. When something
  /// runs under `key`, returns `nil`, after queueing `waiting` if given (the `enqueue` policy) or
  /// dropping the effect (the `dropNew` policy).
  mutating func holdIfIdle(
    _ key: EffectKey, group: EffectGroupID, origin: EffectOrigin, queueing waiting: Waiting?,
    _ after: inout EffectRegistryAftermath
  ) -> EffectSlotID? {
    guard isBusy(key) else {
      return reserve(group: group, ids: [key], origin: origin, isHold: true)
    }
    guard let waiting else { return nil }
    queues[key, default: []].append(waiting)
    groups[waiting.group, default: Group()].live += 1
    if case .resume(_, _, _, let parent) = waiting { park(parent, &after) }
    return nil
  }

  /// Cancels what runs under `key` and returns a hold on it for the effect that replaces them (the
  /// `cancelInFlight` policy).
  mutating func cancelAndHold(
    _ key: EffectKey, group: EffectGroupID, origin: EffectOrigin, _ after: inout EffectRegistryAftermath
  ) -> EffectSlotID? {
    cancel(key, &after)
    return reserve(group: group, ids: [key], origin: origin, isHold: true)
  }

  private mutating func startNextInQueue(of key: EffectKey, _ after: inout EffectRegistryAftermath) {
    while var queue = queues[key], !queue.isEmpty {
      let next = queue.removeFirst()
      queues[key] = queue.isEmpty ? nil : queue
      groups[next.group]!.live -= 1  // The slot reserved below takes the queue's place in the group.
      switch next {
      case .spawn(let pending):
        guard let slot = reserve(group: pending.group, ids: pending.ids, origin: pending.origin) else {
          restoreGroupAfterDroppedEntry(pending.group, &after)
          continue
        }
        after.start.append((pending, slot))
      case .resume(let continuation, let group, let ids, let parent):
        unpark(parent)
        let origin = EffectOrigin(fileID: #fileID, line: #line)
        guard let slot = reserve(group: group, ids: ids, origin: origin, isHold: true) else {
          restoreGroupAfterDroppedEntry(group, &after)
          after.resumeToken.append((continuation, nil))
          continue
        }
        after.resumeToken.append((continuation, slot))
      }
      return
    }
  }

  /// After an entry left a queue without starting: completes its group if that was its last work.
  private mutating func restoreGroupAfterDroppedEntry(
    _ group: EffectGroupID, _ after: inout EffectRegistryAftermath
  ) {
    guard let state = groups[group], state.live == 0 else { return }
    after.resume.append(contentsOf: state.waiters)
    groups[group] = nil
  }

  private mutating func dropWaiting(
    where shouldDrop: (Waiting) -> Bool, _ after: inout EffectRegistryAftermath
  ) {
    for (key, queue) in queues {
      let (dropped, kept) = (queue.filter(shouldDrop), queue.filter { !shouldDrop($0) })
      guard !dropped.isEmpty else { continue }
      queues[key] = kept.isEmpty ? nil : kept
      for entry in dropped {
        if case .resume(let continuation, _, _, let parent) = entry {
          unpark(parent)
          after.resumeToken.append((continuation, nil))
        }
        leave(entry.group, &after)
      }
    }
  }

  // MARK: - Throttle

  enum ThrottleDecision {
    /// Start the effect now: no window is open.
    case runNow
    /// The effect is held for the end of the window; when `timer` is set, the caller spawns the
    /// task of that slot, which sleeps for `remaining` and then calls ``fireThrottle(under:timer:now:_:)``.
    case held(timer: EffectSlotID?, remaining: Duration)
    /// The effect is dropped: another is held and the throttle keeps the first.
    case dropped
  }

  /// Decides what happens to an effect throttled under `key`. With no window open it runs now and
  /// opens one; inside a window it is held for the window's end, replacing the held effect when
  /// `latest` is true, or dropped when `latest` is false and one is already held.
  ///
  /// - Parameter now: A closure measuring the time elapsed since this call.
  mutating func throttle(
    _ effect: PendingEffect, under key: EffectKey, interval: Duration, latest: Bool,
    now: @escaping @Sendable () -> Duration, _ after: inout EffectRegistryAftermath
  ) -> ThrottleDecision {
    guard var throttle = throttles[key], throttle.timer != nil || throttle.elapsed() < interval else {
      throttles[key] = Throttle(elapsed: now, timer: nil, held: nil)
      return .runNow
    }
    if let held = throttle.held {
      guard latest else { return .dropped }
      leave(held.group, &after)
    }
    throttle.held = effect
    groups[effect.group, default: Group()].live += 1
    let remaining = max(.zero, interval - throttle.elapsed())
    var newTimer: EffectSlotID?
    if throttle.timer == nil {
      newTimer = reserve(group: effect.group, ids: [key], origin: effect.origin)
      throttle.timer = newTimer
    }
    throttles[key] = throttle
    return .held(timer: newTimer, remaining: remaining)
  }

  /// Ends a throttle window: reserves a slot for the held effect, which starts a new window, and
  /// returns it for the caller to spawn.
  mutating func fireThrottle(
    under key: EffectKey, timer: EffectSlotID, now: @escaping @Sendable () -> Duration,
    _ after: inout EffectRegistryAftermath
  ) -> (PendingEffect, EffectSlotID)? {
    guard var throttle = throttles[key], throttle.timer == timer, let held = throttle.held else {
      return nil
    }
    throttle = Throttle(elapsed: now, timer: nil, held: nil)
    throttles[key] = throttle
    leave(held.group, &after)
    guard let slot = reserve(group: held.group, ids: held.ids, origin: held.origin) else { return nil }
    return (held, slot)
  }

  // MARK: - Cancellation

  mutating func cancel(_ key: EffectKey, _ after: inout EffectRegistryAftermath) {
    for id in index[key] ?? [] {
      if slots[id]!.ids.contains(key) {
        cancelSlot(id, &after)
      } else {
        slots[id]!.cancelledHeldIDs.insert(key)
      }
    }
    if let queue = queues.removeValue(forKey: key) {
      for entry in queue {
        if case .resume(let continuation, _, _, let parent) = entry {
          unpark(parent)
          after.resumeToken.append((continuation, nil))
        }
        leave(entry.group, &after)
      }
    }
    if let throttle = throttles.removeValue(forKey: key), let held = throttle.held {
      leave(held.group, &after)
    }
    wakeWaitersIfQuiet(&after)
  }

  mutating func cancel(group: EffectGroupID, _ after: inout EffectRegistryAftermath) {
    cancelledGroups.insert(group)
    guard groups[group] != nil else { return }
    for (id, slot) in slots where slot.group == group { cancelSlot(id, &after) }
    dropWaiting(where: { $0.group == group }, &after)
    for (key, throttle) in throttles where throttle.held?.group == group {
      throttles[key]!.held = nil
      leave(group, &after)
    }
    wakeWaitersIfQuiet(&after)
  }

  /// Cancels everything running or waiting.
  mutating func cancelAll(_ after: inout EffectRegistryAftermath) {
    for id in slots.keys { cancelSlot(id, &after) }
    dropWaiting(where: { _ in true }, &after)
    for (key, throttle) in throttles {
      if let held = throttle.held {
        throttles[key]!.held = nil
        leave(held.group, &after)
      }
    }
    wakeWaitersIfQuiet(&after)
  }

  /// Cancels everything and refuses new effects: the Station is gone.
  mutating func close(_ after: inout EffectRegistryAftermath) {
    isClosed = true
    cancelAll(&after)
  }

  private mutating func cancelSlot(_ id: EffectSlotID, _ after: inout EffectRegistryAftermath) {
    guard !slots[id]!.cancelled else { return }
    slots[id]!.cancelled = true
    if let task = slots[id]!.task { after.cancel.append(task) }
  }

  // MARK: - Waiting

  /// Adds a waiter for the end of a group's effects; returns `false` if the group has none left.
  mutating func waitForGroup(
    _ group: EffectGroupID, _ continuation: UnsafeContinuation<Void, Never>
  ) -> Bool {
    guard groups[group] != nil else { return false }
    groups[group]!.waiters.append(continuation)
    return true
  }

  /// What a waiter waits for.
  enum Condition {
    /// No effect is running: each is parked on a test clock, queued, or done.
    case settled
    /// No effect is running, queued or held.
    case idle
  }

  enum Waiter {
    case issued
    case waiting(UnsafeContinuation<Void, Never>, Condition)
    case cancelled
  }

  func holds(_ condition: Condition) -> Bool {
    switch condition {
    case .settled: running == 0
    case .idle: isIdle
    }
  }

  /// Issues the number of a waiter, before its task suspends.
  mutating func issueWaiter() -> UInt64 {
    defer { nextWaiter += 1 }
    waiters[nextWaiter] = .issued
    return nextWaiter
  }

  /// Parks a waiter until `condition` holds; returns `false` when the caller must resume it now
  /// because the condition holds already or its task was cancelled.
  mutating func wait(
    _ number: UInt64, until condition: Condition, _ continuation: UnsafeContinuation<Void, Never>
  ) -> Bool {
    guard case .issued = waiters[number], !holds(condition) else {
      waiters[number] = nil
      return false
    }
    waiters[number] = .waiting(continuation, condition)
    return true
  }

  /// The waiter's task was cancelled: returns its continuation if it is parked.
  mutating func cancelWaiter(_ number: UInt64) -> UnsafeContinuation<Void, Never>? {
    switch waiters[number] {
    case .issued:
      waiters[number] = .cancelled
      return nil
    case .waiting(let continuation, _):
      waiters[number] = nil
      return continuation
    case .cancelled, nil:
      return nil
    }
  }
}

/// What the registry must do once its lock is released: cancel tasks, resume continuations, spawn
/// queued effects. Acting outside the lock keeps resumed tasks from running into it.
struct EffectRegistryAftermath {
  var cancel: [Task<Void, Never>] = []
  var resume: [UnsafeContinuation<Void, Never>] = []
  var resumeToken: [(UnsafeContinuation<EffectToken?, Never>, EffectSlotID?)] = []
  var start: [(PendingEffect, EffectSlotID)] = []

  var isEmpty: Bool { cancel.isEmpty && resume.isEmpty && resumeToken.isEmpty && start.isEmpty }
}
