/// The one interpreter of effect trees.
///
/// ``start(_:in:under:sending:)`` walks an effect synchronously, wherever it runs: on the actor
/// right after a reduction, in a task after a debounce's wait, or wherever an effect ended and
/// the registry started what waited for it. It never suspends. Each part that runs or waits
/// becomes a slot in the registry: a `run` starts a task; a `concatenate` is a slot keeping its
/// remaining parts; an effect admitted under an id runs under a scope slot, or waits its turn in a
/// slot of its own; a debounce's wait is a task that starts the effect when it wakes. Actions to
/// send are returned to the caller, which alone knows how to reach the actor from where it is.
extension StateHandler {
  /// An action sent by an effect: reduced next when sent from a reduction, or taken to the actor.
  @usableFromInline
  struct Send: Sendable {
    @usableFromInline let action: Action
    @usableFromInline let pour: PourNumber
    /// The slot that waits for the action to be reduced (inside a `concatenate`, say); `nil` for
    /// an action a reduction sent at the top of its effect.
    @usableFromInline let delivery: EffectSlotID?
  }

  /// Starts the effect a reduction returned, on the actor: its sends are reduced next.
  ///
  /// Inlinable, so that it is compiled for the Station's types where the Station is created: a
  /// `run` at the top of the effect, the common case, starts here, without the walk below, whose
  /// generic code looked up generic metadata at several of its steps (the effect, the list of
  /// sends, the effect's task object).
  @inlinable
  func perform(_ effect: Effect<Action>, pour: PourNumber) {
    if pour > lastPourWithEffects { lastPourWithEffects = pour }
    if case .run(let run) = effect.operation {
      guard let slot = effects.reserveTask(pour: pour, origin: run.origin) else { return }
      return startTask(of: run, pour: pour, slot: slot)
    }
    performTree(effect, pour: pour)
  }

  /// Starts any other effect a reduction returned, walking it.
  ///
  /// Inlinable too: in generic code, making its empty list of sends looked up the metadata of
  /// `Send`, a type nested in the generic handler, at every reduction with an effect.
  @inlinable
  func performTree(_ effect: Effect<Action>, pour: PourNumber) {
    var sends: [Send] = []
    start(effect, in: EffectContext(pour: pour), under: nil, sending: &sends)
    // Most effects send nothing at once (a `run`): skip the generic append, which looks up the
    // array's metadata and witness table at each call.
    if !sends.isEmpty { followUps.append(contentsOf: sends) }
  }

  /// Walks `effect` in `context` under `parent` (`nil` at the top of a reduction's effect),
  /// reserving a slot for each part that runs or waits, and appending the actions it sends to
  /// `sends`.
  @usableFromInline
  nonisolated func start(
    _ effect: Effect<Action>, in context: EffectContext, under parent: EffectSlotID?,
    sending sends: inout [Send]
  ) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      send(action, in: context, under: parent, into: &sends)
    case .run(let run):
      let request = slot(.task, in: context, under: parent, origin: run.origin)
      guard let slot = reserve(request, &sends) else { return }
      startTask(of: run, pour: context.pour, slot: slot)
    case .merge(let effects):
      for effect in effects { start(effect, in: context, under: parent, sending: &sends) }
    case .concatenate(let parts):
      startSequence(parts, in: context, under: parent, sending: &sends)
    case .cancellable(let admission, let inner):
      admit(inner, under: admission, in: context, parent: parent, sending: &sends)
    case .cancel(.absentChildren(let location, let isPresent)):
      let namespace = context.namespace
      let (_, starts) = effects.update { state, after in
        state.cancelChildren(of: namespace, at: location, keeping: isPresent, &after)
      }
      startWork(starts, sending: &sends)
    case .cancel(let cancellation):
      guard let key = context.key(for: cancellation) else { return }
      cancel(key, sending: &sends)
    case .namespaced(let component, let inner):
      let namespace = context.namespaceKey(for: component)
      guard !context.skips(namespace) else { return }
      start(inner, in: context.entering(component), under: parent, sending: &sends)
    case .delayed(let delay, let inner):
      let request = slot(.task, in: context, under: parent, origin: delay.origin)
      guard let slot = reserve(request, &sends) else { return }
      startDelay(of: PendingEffect(effect: inner, context: context), by: delay, slot: slot)
    case .throttled(let throttle, let inner):
      self.throttle(inner, by: throttle, in: context, parent: parent, sending: &sends)
    case .announce(.diagnostic(let diagnostic)):
      report(diagnostic)
    case .announce(.event(let event)):
      events.emit(event)
    case .host(let effect):
      report(effect.outsideAHost)
    }
  }

  // MARK: - Parts

  private nonisolated func send(
    _ action: Action, in context: EffectContext, under parent: EffectSlotID?, into sends: inout [Send]
  ) {
    guard let parent else {
      return sends.append(Send(action: action, pour: context.pour, delivery: nil))
    }
    // Inside a part that waits for it (a `concatenate`, a scope), the action is a slot of its own
    // until it is reduced.
    let request = slot(
      .delivery, in: context, under: parent, origin: EffectOrigin(fileID: #fileID, line: #line))
    guard let delivery = reserve(request, &sends) else { return }
    sends.append(Send(action: action, pour: context.pour, delivery: delivery))
  }

  private nonisolated func startSequence(
    _ parts: [Effect<Action>], in context: EffectContext, under parent: EffectSlotID?,
    sending sends: inout [Send]
  ) {
    if parent == nil, parts.allSatisfy(\.isImmediate) {
      // Sends from a reduction are reduced next, in order: nothing to wait for.
      for part in parts { start(part, in: context, under: nil, sending: &sends) }
      return
    }
    var upcomingKeys: [EffectKey] = []
    for part in parts.dropFirst() { part.cancellationKeys(in: context.namespace, into: &upcomingKeys) }
    upcomingKeys = Array(Set(upcomingKeys))
    var request = slot(.join, in: context, under: parent, origin: EffectOrigin(fileID: #fileID, line: #line))
    request.guarded = true
    guard let sequence = reserve(request, &sends) else { return }
    start(parts[0], in: context, under: sequence, sending: &sends)
    let rest = parts.dropFirst().map { PendingEffect(effect: $0, context: context) }
    let (_, starts) = effects.update { state, after in
      state.beginSequence(
        sequence, parts: rest.map { EffectWork(base: $0) }, upcomingKeys: upcomingKeys, &after)
    }
    startWork(starts, sending: &sends)
  }

  private nonisolated func admit(
    _ inner: Effect<Action>, under admission: EffectAdmission, in context: EffectContext,
    parent: EffectSlotID?, sending sends: inout [Send]
  ) {
    let key = context.key(for: admission.id)
    guard !context.skips(key) else { return }
    let innerContext = context.adding(key)
    guard admission.policy != .concurrent else {
      return start(inner, in: innerContext, under: parent, sending: &sends)
    }
    let work = EffectWork(base: PendingEffect(effect: inner, context: innerContext))
    let scope = slot(.join, in: innerContext, under: parent, origin: admission.origin)
    let nested = context.keys.contains(key)
    let (decision, starts) = effects.update { state, after in
      state.admit(under: key, policy: admission.policy, scope: scope, nested: nested, work: work, &after)
    }
    startWork(starts, sending: &sends)
    guard case .start(let scopeSlot) = decision else { return }
    startWork([StartWork(work: work, slot: scopeSlot)], sending: &sends)
  }

  private nonisolated func cancel(_ key: EffectKey, sending sends: inout [Send]) {
    let (_, starts) = effects.update { state, after in state.cancel(key, &after) }
    startWork(starts, sending: &sends)
  }

  private nonisolated func throttle(
    _ inner: Effect<Action>, by throttle: EffectThrottle, in context: EffectContext, parent: EffectSlotID?,
    sending sends: inout [Send]
  ) {
    let key = context.key(for: throttle.id)
    guard !context.skips(key) else { return }
    let inner = PendingEffect(effect: inner, context: context.adding(key))
    let hold = slot(.waiting, in: inner.context, under: parent, origin: throttle.origin)
    let (decision, starts) = effects.update { state, after in
      state.throttle(
        under: key, interval: throttle.interval, latest: throttle.latest, windowKeys: inner.context.keys,
        hold: hold, work: EffectWork(base: inner), now: stopwatch(throttle.clock), &after)
    }
    startWork(starts, sending: &sends)
    switch decision {
    case .runNow:
      start(inner.effect, in: inner.context, under: parent, sending: &sends)
    case .held(let timer?, let remaining):
      startTimer(timer, of: key, sleeping: remaining, on: throttle.clock)
    case .held(nil, _), .dropped:
      return
    }
  }

  // MARK: - Slots and started work

  /// A slot of `role` for an effect running in `context`.
  private nonisolated func slot(
    _ role: EffectRegistryState<EffectWork>.Role, in context: EffectContext,
    under parent: EffectSlotID?, origin: EffectOrigin
  ) -> EffectRegistryState<EffectWork>.Request {
    .init(role: role, pour: context.pour, parent: parent, keys: context.keys, origin: origin)
  }

  private nonisolated func reserve(
    _ request: EffectRegistryState<EffectWork>.Request, _ sends: inout [Send]
  ) -> EffectSlotID? {
    effects.update { state, _ in state.reserve(request) }.0
  }

  /// Starts work the registry handed back, each under its guarded slot, then releases the guard;
  /// what that starts in turn is started too, until nothing is left.
  nonisolated func startWork(
    _ starts: [StartWork<EffectWork>], sending sends: inout [Send]
  ) {
    var queue = starts
    var index = 0
    while index < queue.count {
      let next = queue[index]
      index += 1
      let work = next.work.base as! PendingEffect<Action>
      var context = work.context
      context.skipping.formUnion(next.skipping)
      start(work.effect, in: context, under: next.slot, sending: &sends)
      let (_, more) = effects.update { state, after in state.release(next.slot, &after) }
      queue.append(contentsOf: more)
    }
  }
}
