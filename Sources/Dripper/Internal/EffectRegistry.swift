import Synchronization

/// A Station's bookkeeping of its effects: which run, under which ids, for which pour; what waits
/// for them; and whether the Station is gone.
///
/// Decisions are made by ``EffectRegistryState`` under the lock; tasks are cancelled, waiters resumed
/// and queued effects spawned after the lock is released.
@usableFromInline
final class EffectRegistry: Sendable {
  private let state = Lock(EffectRegistryState())
  /// How many pours have effects in flight, so that finishing a pour without any skips the lock.
  private let liveGroups = Atomic<Int>(0)
  private let closed = Atomic<Bool>(false)

  @usableFromInline
  init() {}

  /// Whether any pour has effects in flight: when not, finishing a pour needs no waiting.
  @usableFromInline
  var hasLiveGroups: Bool { liveGroups.load(ordering: .acquiring) > 0 }

  @usableFromInline
  var isClosed: Bool { closed.load(ordering: .acquiring) }

  /// Runs `body` under the lock, then acts on what it decided.
  private func update<R>(_ body: (inout EffectRegistryState, inout EffectRegistryAftermath) -> R) -> R {
    let (result, after) = state.withLock { state in
      var after = EffectRegistryAftermath()
      let result = body(&state, &after)
      liveGroups.store(state.groups.count, ordering: .releasing)
      return (result, after)
    }
    if !after.isEmpty { act(on: after) }
    return result
  }

  private func act(on after: EffectRegistryAftermath) {
    for task in after.cancel { task.cancel() }
    for continuation in after.resume { continuation.resume() }
    for (continuation, slot) in after.resumeToken {
      continuation.resume(returning: slot.map { EffectToken(registry: self, slot: $0) })
    }
    for (pending, slot) in after.start {
      let token = EffectToken(registry: self, slot: slot)
      token.attach(pending.start(token))
    }
  }

  // MARK: - Slots

  /// Reserves a slot for an effect about to start; `nil` means it must not start.
  func reserve(
    group: EffectGroupID, ids: [EffectKey], heldIDs: [EffectKey] = [], origin: EffectOrigin
  ) -> EffectToken? {
    update { state, _ in
      state.reserve(group: group, ids: ids, heldIDs: heldIDs, origin: origin)
    }.map { EffectToken(registry: self, slot: $0) }
  }

  fileprivate func attach(_ task: Task<Void, Never>, to slot: EffectSlotID) {
    let cancelNow = state.withLock { $0.attach(task, to: slot) }
    cancelNow?.cancel()
  }

  fileprivate func finish(_ slot: EffectSlotID) {
    update { state, after in state.finish(slot, &after) }
  }

  fileprivate func park(_ slot: EffectSlotID) {
    update { state, after in state.park(slot, &after) }
  }

  fileprivate func unpark(_ slot: EffectSlotID) {
    state.withLock { $0.unpark(slot) }
  }

  fileprivate func isPartCancelled(_ keys: [EffectKey], in slot: EffectSlotID) -> Bool {
    state.withLock { $0.isPartCancelled(keys, in: slot) }
  }

  // MARK: - Policies

  /// Admits an effect under `key` if nothing runs under it, returning a hold that keeps `key` busy
  /// until the caller has started the effect's work; otherwise returns `nil`, after queueing
  /// `pending` to start when `key` is free (the `enqueue` policy) or dropping it (`dropNew`).
  func holdIfIdle(
    _ key: EffectKey, group: EffectGroupID, origin: EffectOrigin, queueing pending: PendingEffect?
  ) -> EffectToken? {
    update { state, after in
      state.holdIfIdle(key, group: group, origin: origin, queueing: pending.map { .spawn($0) }, &after)
    }.map { EffectToken(registry: self, slot: $0) }
  }

  /// Cancels what runs under `key` and returns a hold on it for the effect that replaces them.
  func cancelAndHold(_ key: EffectKey, group: EffectGroupID, origin: EffectOrigin) -> EffectToken? {
    update { state, after in
      state.cancelAndHold(key, group: group, origin: origin, &after)
    }.map { EffectToken(registry: self, slot: $0) }
  }

  /// Waits, with `parent` parked, until nothing runs under `key`, then returns a hold on it; or
  /// returns `nil` if `key` was cancelled first.
  func waitForTurn(
    under key: EffectKey, group: EffectGroupID, origin: EffectOrigin, parent: EffectToken
  ) async -> EffectToken? {
    await withUnsafeContinuation { continuation in
      let waiting = EffectRegistryState.Waiting.resume(
        continuation, group: group, ids: [key], parent: parent.slot)
      let hold: EffectSlotID?? = update { state, after in
        let hold = state.holdIfIdle(key, group: group, origin: origin, queueing: waiting, &after)
        return hold.map { .some($0) } ?? (state.isBusy(key) ? .none : .some(nil))
      }
      if case .some(let hold) = hold {
        continuation.resume(returning: hold.map { EffectToken(registry: self, slot: $0) })
      }
    }
  }

  /// Parks `parent` until `child` finishes: a container effect waiting on one of its parts.
  fileprivate func park(_ parent: EffectSlotID, untilFinished child: EffectSlotID) -> Bool {
    update { state, after in state.park(parent, untilFinished: child, &after) }
  }

  func throttle(
    _ pending: PendingEffect, under key: EffectKey, interval: Duration, latest: Bool,
    now: @escaping @Sendable () -> Duration
  ) -> (decision: EffectRegistryState.ThrottleDecision, timer: EffectToken?) {
    let decision = update { state, after in
      state.throttle(pending, under: key, interval: interval, latest: latest, now: now, &after)
    }
    guard case .held(let timer?, _) = decision else { return (decision, nil) }
    return (decision, EffectToken(registry: self, slot: timer))
  }

  /// Ends the throttle window timed by `timer`, spawning the held effect if there is one.
  func fireThrottle(under key: EffectKey, timer: EffectToken, now: @escaping @Sendable () -> Duration) {
    let held = update { state, after in
      state.fireThrottle(under: key, timer: timer.slot, now: now, &after)
    }
    guard let (pending, slot) = held else { return }
    let token = EffectToken(registry: self, slot: slot)
    token.attach(pending.start(token))
  }

  // MARK: - Cancellation

  func cancel(_ key: EffectKey) {
    update { state, after in state.cancel(key, &after) }
  }

  func cancel(group: EffectGroupID) {
    update { state, after in state.cancel(group: group, &after) }
  }

  func isCancelled(group: EffectGroupID) -> Bool {
    state.withLock { $0.isCancelled(group: group) }
  }

  /// Cancels every effect running or waiting now; new ones may start.
  func cancelAll() {
    update { state, after in state.cancelAll(&after) }
  }

  /// Cancels every effect and refuses new ones: the Station is gone.
  func close() {
    closed.store(true, ordering: .releasing)
    update { state, after in state.close(&after) }
  }

  // MARK: - Waiting

  /// Waits until every effect of a pour has ended. Cancelling the waiting task cancels them.
  @usableFromInline
  func waitForGroup(_ group: EffectGroupID) async {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let waiting = state.withLock { $0.waitForGroup(group, continuation) }
        if !waiting { continuation.resume() }
      }
    } onCancel: {
      cancel(group: group)
    }
  }

  /// Waits until `condition` holds; returns early, without it holding, if the task is cancelled.
  func wait(until condition: EffectRegistryState.Condition) async {
    let number = state.withLock { $0.issueWaiter() }
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let parked = state.withLock { $0.wait(number, until: condition, continuation) }
        if !parked { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.cancelWaiter(number) }?.resume()
    }
  }

  // MARK: - Inspection

  /// What the registry holds, for tests and the test harness.
  struct Snapshot: Sendable, Equatable {
    var running: Int
    var live: Int
    var isEmpty: Bool
    var isIdle: Bool
  }

  var snapshot: Snapshot {
    state.withLock {
      Snapshot(running: $0.running, live: $0.slots.count, isEmpty: $0.isEmpty, isIdle: $0.isIdle)
    }
  }

  /// Where the effects still running were written.
  var liveOrigins: [EffectOrigin] { state.withLock { $0.liveOrigins } }

  /// Where the effects that are neither finished nor asleep on a test clock were written.
  var runningOrigins: [EffectOrigin] { state.withLock { $0.runningOrigins } }
}

/// A running effect's handle on its registry slot.
@usableFromInline
struct EffectToken: Sendable {
  let registry: EffectRegistry
  let slot: EffectSlotID

  /// Records the effect's task, cancelling it at once if the effect was cancelled meanwhile.
  func attach(_ task: Task<Void, Never>) { registry.attach(task, to: slot) }

  /// Ends the effect: frees its slot and ids, wakes what waited for it, starts what was queued.
  func finish() { registry.finish(slot) }

  /// The effect waits on a test clock: it cannot progress until time moves.
  func park() { registry.park(slot) }

  /// The effect was woken by a test clock.
  func unpark() { registry.unpark(slot) }

  /// Waits for `task`, the task of `child`, with this effect parked meanwhile: a container effect
  /// does not count as running while its part runs.
  func waitParked(for task: Task<Void, Never>, of child: EffectToken) async {
    _ = registry.park(slot, untilFinished: child.slot)
    await task.value
  }

  /// Whether a not-yet-started part of this `concatenate` effect, using `keys`, was cancelled.
  func isPartCancelled(_ keys: [EffectKey]) -> Bool { registry.isPartCancelled(keys, in: slot) }
}
