import Synchronization

/// The tasks a Station's effects run in, and how what they send reaches the actor.
///
/// Three kinds of slot have a task: a `run` effect's, a debounce's wait (which starts its effect
/// when it wakes) and a throttle window's timer. Every task prefers the Station's watched executor
/// when it has one (in tests), and ends by telling the registry, which may hand back work that
/// waited for it: the task starts that work and takes what it sends to the actor before it ends.
extension StateHandler {
  /// Starts the task of a `run` effect in `slot`.
  nonisolated func startTask(of run: EffectRun<Action>, in context: EffectContext, slot: EffectSlotID) {
    let effect = EffectRunState(origin: run.origin)
    let number = context.pour
    let pour = Pour<Action> { [self] action, cancelled in
      await self.receive(action, cancelled: cancelled, pour: number, from: effect)
    }
    let executor = self.executor
    let task = spawn(priority: run.priority) { [self] in
      await DependencyValues.bind(run.dependencies) {
        guard !Task.isCancelled else { return }
        if let executor {
          let watched = WatchedTask(executor: executor, slot: slot)
          await WatchedTask.$current.withValue(watched) { await perform(run, pour: pour) }
        } else {
          await perform(run, pour: pour)
        }
      }
      effect.ended.store(true, ordering: .releasing)
      await taskEnded(slot)
    }
    effects.attach(task, to: slot)
  }

  /// Runs a `run` effect's operation, handing an error it throws to its `catch`, or reporting it.
  ///
  /// Inlined into the task: each async frame costs room in the task's allocator, and an effect
  /// waiting on something holds all of them for as long as it waits.
  @inline(__always)
  nonisolated func perform(_ run: EffectRun<Action>, pour: Pour<Action>) async {
    do {
      try await run.operation(pour)
    } catch is CancellationError {
    } catch {
      if let handler = run.handler {
        await handler(error, pour)
      } else {
        report(
          Diagnostic(
            .uncaughtError, "an effect started at \(run.origin) threw \(error), which no 'catch' handled",
            error: error))
      }
    }
  }

  /// Starts the task of a debounce's wait in `slot`: it sleeps on the clock, then starts `work`
  /// under `slot`.
  nonisolated func startDelay(of work: PendingEffect<Action>, by delay: EffectDelay, slot: EffectSlotID) {
    let task = spawn { [self] in
      await watching(slot) {
        guard (try? await delay.clock.sleep(for: delay.duration)) != nil else { return }
        var sends: [Send] = []
        start(work.effect, in: work.context, under: slot, sending: &sends)
        await deliver(sends)
      }
      await taskEnded(slot)
    }
    effects.attach(task, to: slot)
  }

  /// Starts the task of a throttle window's timer: it sleeps until the window ends, then starts
  /// the effect held for it.
  nonisolated func startTimer(
    _ timer: EffectSlotID, of key: EffectKey, sleeping remaining: Duration, on clock: any Clock<Duration>
  ) {
    let task = spawn { [self] in
      await watching(timer) {
        guard (try? await clock.sleep(for: remaining)) != nil else { return }
        let (_, starts) = effects.update { state, after in
          state.fireWindow(of: key, timer: timer, now: stopwatch(clock), &after)
        }
        var sends: [Send] = []
        startWork(starts, sending: &sends)
        await deliver(sends)
      }
      await taskEnded(timer)
    }
    effects.attach(task, to: timer)
  }

  /// Starts a task of the Station: on its watched executor, when it has one.
  ///
  /// Without one, the task is started without an executor preference at all: a task that has one,
  /// even `nil`, pays for looking it up at each suspension.
  @discardableResult
  nonisolated func spawn(
    priority: TaskPriority? = nil, _ operation: sending @escaping @isolated(any) () async -> Void
  ) -> Task<Void, Never> {
    if let executor {
      Task.detached(executorPreference: executor, priority: priority, operation: operation)
    } else {
      Task.detached(priority: priority, operation: operation)
    }
  }

  /// Runs `body` as the task of the effect in `slot`: in a watched Station, a test clock can then
  /// tell which effect sleeps on it.
  nonisolated func watching(_ slot: EffectSlotID, _ body: () async -> Void) async {
    if let executor {
      await WatchedTask.$current.withValue(WatchedTask(executor: executor, slot: slot), operation: body)
    } else {
      await body()
    }
  }

  /// A slot's task has ended: starts what waited for it, and takes what that sends to the actor.
  nonisolated func taskEnded(_ slot: EffectSlotID) async {
    let (_, starts) = effects.update { state, after in state.taskEnded(slot, &after) }
    guard !starts.isEmpty else { return }
    var sends: [Send] = []
    startWork(starts, sending: &sends)
    await deliver(sends)
  }

  /// Starts work the registry handed back to a caller that cannot wait (a cancellation from any
  /// thread); what it sends goes to the actor in a task of its own.
  nonisolated func startWork(detached starts: [StartWork<EffectWork>]) {
    guard !starts.isEmpty else { return }
    var sends: [Send] = []
    startWork(starts, sending: &sends)
    guard !sends.isEmpty else { return }
    spawn { await self.deliver(sends) }
  }

  /// Takes actions sent off the actor to it, to be reduced in order.
  nonisolated func deliver(_ sends: [Send]) async {
    guard !sends.isEmpty else { return }
    await onActor { handler in handler.reduceSends(sends) }
  }

  /// Runs `body` on the actor; from a watched Station's task, the call counts as away meanwhile.
  nonisolated func onActor<Result: Sendable>(_ body: @Sendable (isolated StateHandler) -> Result) async
    -> Result
  {
    guard let executor else { return await body(self) }
    return await executor.runAway { await body(self) }
  }

  /// Reduces actions sent off the actor, after what the mailbox holds.
  func reduceSends(_ sends: [Send]) {
    drainMailbox()
    withStationDependencies {
      followUps.append(contentsOf: sends)
      reduceFollowUps()
    }
  }

  // MARK: - Cancelling from outside a reduction

  /// Cancels the effects of a pour: what its ``PourTask`` does.
  @usableFromInline
  nonisolated func cancel(pour: PourNumber) {
    let (_, starts) = effects.update { state, after in state.cancel(pour: pour, &after) }
    startWork(detached: starts)
  }

  /// Cancels the effects under `id` in the Station's own namespace, as a reduction returning
  /// `.cancel(id:)` would.
  nonisolated func cancelEffects(id: AnySendableHashable) {
    let key = EffectKey(namespace: .root, kind: .id(id))
    let (_, starts) = effects.update { state, after in state.cancel(key, &after) }
    startWork(detached: starts)
  }

  /// Cancels every effect running or waiting now; new ones may start.
  nonisolated func cancelAllEffects() {
    let (_, starts) = effects.update { state, after in state.cancelAll(&after) }
    startWork(detached: starts)
  }
}

/// What a `run` effect's ``Pour`` knows of the effect: where it was written, and whether its
/// operation has returned (what its pour sends from then on escaped it).
final class EffectRunState: Sendable {
  let origin: EffectOrigin
  let ended = Atomic<Bool>(false)

  init(origin: EffectOrigin) { self.origin = origin }
}

extension StateHandler {
  /// Takes an action a `run` effect poured to the actor; drops it, with a diagnostic if the Station
  /// is gone, when the pouring task is cancelled.
  nonisolated func receive(
    _ action: Action, cancelled: Bool, pour: PourNumber, from effect: EffectRunState
  ) async {
    if cancelled {
      guard isReleased else { return }
      return report(
        Diagnostic(.droppedPour, "dropped \(action): it was poured after its Station was released"))
    }
    if effect.ended.load(ordering: .acquiring), !isReleased {
      report(
        Diagnostic(
          .pourFromEndedEffect,
          "an action was poured from an effect that had already ended (started at \(effect.origin)): "
            + "\(action); it is reduced, but nothing tracks it: make the effect's operation wait for what pours"
        ))
    }
    guard let executor else { return await receive(action, pour: pour) }
    await executor.runAway { await self.receive(action, pour: pour) }
  }
}
