/// How a ``StateHandler`` runs the effects its reductions return.
///
/// Right after a reduction, ``perform(_:in:)`` walks the effect on the actor: sends are queued to be
/// reduced next, each `run` starts one task, and the registry admits effects under their ids. Work
/// that must wait — the parts of a `concatenate`, an effect queued behind another, a delay — runs in
/// a container task that walks its effect with ``performAsync(_:in:parent:)``.
extension StateHandler {
  /// Walks an effect returned by a reduction.
  @usableFromInline
  func perform(_ effect: Effect<Action>, in context: EffectContext) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      sendFollowUp(action, group: context.group)
    case .run(let run):
      start(run, in: context)
    case .merge(let effects):
      for effect in effects { perform(effect, in: context) }
    case .concatenate(let effects):
      if effects.allSatisfy(\.isImmediate) {
        for effect in effects { perform(effect, in: context) }
      } else {
        startSequence(of: effects, in: context)
      }
    case .cancellable(let id, let policy, let inner):
      let key = context.key(for: id)
      let innerContext = context.adding(key)
      let origin = EffectOrigin(fileID: #fileID, line: #line)
      let hold: EffectToken?
      switch policy {
      case .concurrent:
        hold = nil
      case .cancelInFlight:
        hold = effects.cancelAndHold(key, group: context.group, origin: origin)
      case .dropNew:
        guard let admitted = effects.holdIfIdle(key, group: context.group, origin: origin, queueing: nil)
        else { return }
        hold = admitted
      case .enqueue:
        let pending = pendingEffect(inner, in: innerContext)
        guard
          let admitted = effects.holdIfIdle(key, group: context.group, origin: origin, queueing: pending)
        else { return }
        hold = admitted
      }
      perform(inner, in: innerContext)
      hold?.finish()
    case .cancel(let id):
      effects.cancel(context.key(for: id))
    case .namespaced(let component, let inner):
      perform(inner, in: context.entering(component))
    case .cancelNamespace(let component):
      effects.cancel(context.namespaceKey(for: component))
    case .delayed(let delay, let inner):
      startDelayed(inner, by: delay, in: context)
    case .throttled(let id, let throttle, let inner):
      let key = context.key(for: id)
      if throttled(inner, under: key, throttle, in: context) {
        perform(inner, in: context.adding(key))
      }
    case .report(let diagnostic):
      report(diagnostic)
    case .emit(let event):
      events.emit(event)
    }
  }

  /// Walks an effect inside a container effect's task, returning once all of it has finished.
  nonisolated func performAsync(
    _ effect: Effect<Action>, in context: EffectContext, parent: EffectToken
  ) async {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      guard !Task.isCancelled else { return }
      await receive(action, group: context.group)
    case .run(let run):
      if let (task, token) = start(run, in: context) {
        await parent.waitParked(for: task, of: token)
      }
    case .merge(let effects):
      await withTaskGroup(of: Void.self) { group in
        for effect in effects {
          group.addTask { await self.performAsync(effect, in: context, parent: parent) }
        }
      }
    case .concatenate(let effects):
      for effect in effects {
        guard !Task.isCancelled else { return }
        await performAsync(effect, in: context, parent: parent)
      }
    case .cancellable(let id, let policy, let inner):
      let key = context.key(for: id)
      let origin = EffectOrigin(fileID: #fileID, line: #line)
      let hold: EffectToken?
      switch policy {
      case .concurrent:
        hold = nil
      case .cancelInFlight:
        hold = effects.cancelAndHold(key, group: context.group, origin: origin)
      case .dropNew:
        guard let admitted = effects.holdIfIdle(key, group: context.group, origin: origin, queueing: nil)
        else { return }
        hold = admitted
      case .enqueue:
        guard
          let admitted = await effects.waitForTurn(
            under: key, group: context.group, origin: origin, parent: parent)
        else { return }
        hold = admitted
      }
      await performAsync(inner, in: context.adding(key), parent: parent)
      hold?.finish()
    case .cancel(let id):
      effects.cancel(context.key(for: id))
    case .namespaced(let component, let inner):
      await performAsync(inner, in: context.entering(component), parent: parent)
    case .cancelNamespace(let component):
      effects.cancel(context.namespaceKey(for: component))
    case .delayed(let delay, let inner):
      do {
        try await delay.clock.sleep(for: delay.duration)
      } catch {
        return
      }
      await performAsync(inner, in: context, parent: parent)
    case .throttled(let id, let throttle, let inner):
      let key = context.key(for: id)
      if throttled(inner, under: key, throttle, in: context) {
        await performAsync(inner, in: context.adding(key), parent: parent)
      }
    case .report(let diagnostic):
      report(diagnostic)
    case .emit(let event):
      events.emit(event)
    }
  }

  // MARK: - Starting tasks

  /// Starts the task of a `run` effect, unless its pour was cancelled or its Station is gone.
  @discardableResult
  nonisolated func start(
    _ run: EffectRun<Action>, in context: EffectContext
  ) -> (Task<Void, Never>, EffectToken)? {
    guard let token = effects.reserve(group: context.group, ids: context.keys, origin: run.origin)
    else { return nil }
    let group = context.group
    let pour = Pour<Action> { action in await self.receive(action, group: group) }
    let dependencies = run.dependencies.running(token)
    let task = Task.detached(priority: run.priority) {
      await DependencyValues.$current.withValue(dependencies) {
        guard !Task.isCancelled else { return }
        do {
          try await run.operation(pour)
        } catch is CancellationError {
        } catch {
          if let handler = run.handler {
            await handler(error, pour)
          } else {
            self.report(
              Diagnostic(
                .uncaughtError,
                "an effect started at \(run.origin) threw \(error), which no 'catch' handled",
                error: error))
          }
        }
      }
      token.finish()
    }
    token.attach(task)
    return (task, token)
  }

  /// Starts a container effect: a task that runs `body` as the effect of `token`.
  nonisolated func startContainer(
    _ token: EffectToken, _ body: @escaping @Sendable (EffectToken) async -> Void
  ) -> Task<Void, Never> {
    let dependencies = DependencyValues.current.running(token)
    let task = Task.detached {
      await DependencyValues.$current.withValue(dependencies) {
        guard !Task.isCancelled else { return }
        await body(token)
      }
      token.finish()
    }
    token.attach(task)
    return task
  }

  /// Starts the task running the parts of a `concatenate` one after another.
  private func startSequence(of parts: [Effect<Action>], in context: EffectContext) {
    let held = parts.flatMap { $0.cancellationKeys(in: context.namespace) }
    let origin = EffectOrigin(fileID: #fileID, line: #line)
    guard
      let token = effects.reserve(
        group: context.group, ids: context.keys, heldIDs: held, origin: origin)
    else { return }
    _ = startContainer(token) { token in
      for part in parts {
        guard !Task.isCancelled else { return }
        guard !token.isPartCancelled(part.cancellationKeys(in: context.namespace)) else { continue }
        await self.performAsync(part, in: context, parent: token)
      }
    }
  }

  /// Starts the task that waits on a clock, then runs `effect`: the plumbing of `debounce`.
  private func startDelayed(_ effect: Effect<Action>, by delay: EffectDelay, in context: EffectContext) {
    let origin = EffectOrigin(fileID: #fileID, line: #line)
    guard let token = effects.reserve(group: context.group, ids: context.keys, origin: origin) else {
      return
    }
    _ = startContainer(token) { token in
      do {
        try await delay.clock.sleep(for: delay.duration)
      } catch {
        return
      }
      await self.performAsync(effect, in: context, parent: token)
    }
  }

  /// An effect to start later, in a container task, under the keys of `context`.
  nonisolated func pendingEffect(_ effect: Effect<Action>, in context: EffectContext) -> PendingEffect {
    PendingEffect(
      group: context.group, ids: context.keys, origin: EffectOrigin(fileID: #fileID, line: #line)
    ) { token in
      self.startContainer(token) { token in
        await self.performAsync(effect, in: context, parent: token)
      }
    }
  }

  /// Applies a throttle to `effect`: returns `true` when it should run now; otherwise it is held
  /// for the end of the window (with a timer task started if none runs) or dropped.
  private nonisolated func throttled(
    _ effect: Effect<Action>, under key: EffectKey, _ throttle: EffectThrottle, in context: EffectContext
  ) -> Bool {
    let pending = pendingEffect(effect, in: context.adding(key))
    let (decision, timer) = effects.throttle(
      pending, under: key, interval: throttle.interval, latest: throttle.latest,
      now: stopwatch(throttle.clock))
    switch decision {
    case .runNow:
      return true
    case .held(_, let remaining):
      if let timer {
        _ = startContainer(timer) { timer in
          do {
            try await throttle.clock.sleep(for: remaining)
          } catch {
            return
          }
          self.effects.fireThrottle(under: key, timer: timer, now: stopwatch(throttle.clock))
        }
      }
      return false
    case .dropped:
      return false
    }
  }
}
