import Synchronization

/// The tasks a Station's effects run in, and how what they send reaches the actor.
///
/// Three kinds of slot have a task: a `run` effect's, a debounce's wait (which starts its effect
/// when it wakes) and a throttle window's timer. Every task prefers the Station's watched executor
/// when it has one (in tests), and ends by telling the registry, which may hand back work that
/// waited for it: the task starts that work and takes what it sends to the actor before it ends.
///
/// The async functions an effect's task and a waiting ``PourTask`` pass through on every pour
/// (`receive`, `taskEnded`, `waitForPour`, a ``Pour``'s sink) are `nonisolated(nonsending)`: they
/// run on their caller's executor. A plain `nonisolated` async function switches to the global
/// executor as it starts and again after each call it awaits; where the caller is there already,
/// each switch is a no-op that still reads the task's status with a 16-byte compare-and-swap.
/// Counted with a uprobe on `swift_task_switch` over `dripper-bench --profile-roundtrip`: 13
/// switches per effect round trip instead of 16, of which four are real hops (onto the actor and
/// off it, for the awaited pour and for the effect's pour); one fewer for each `await pour(x)`.
extension StateHandler {
  /// Starts the task of a `run` effect of `pour` in `slot`.
  ///
  /// The task and the effect's ``Pour`` share one object, the ``RunningEffect``, rather than each
  /// capturing the parts in a context of its own. It is made here, inlinable, so that where the
  /// caller is compiled for the Station's types (`perform(_:pour:)`), making it looks up no
  /// metadata.
  @inlinable
  nonisolated func startTask(of run: EffectRun<Action>, pour: PourNumber, slot: EffectSlotID) {
    spawnTask(of: RunningEffect(handler: self, origin: run.origin, pour: pour, slot: slot), running: run)
  }

  /// Starts the task of a `run` effect: see ``startTask(of:pour:slot:)``.
  ///
  /// The task is started with a closure literal, not through ``spawn(priority:_:)``: passed
  /// through a function, the operation is wrapped in a thunk, one allocation, whose frames
  /// overflowed the first slab of the task's allocator, a second one. The literal is of
  /// ``EffectTask``'s throwing type, which saves the thunk `Task.detached` adds to a
  /// non-throwing operation (6.06 allocations a round trip before, 5.07 after, counted with a
  /// uprobe on `malloc` over `dripper-bench --profile-roundtrip`).
  @usableFromInline
  nonisolated func spawnTask(of effect: RunningEffect<State, Action>, running run: EffectRun<Action>) {
    let slot = effect.slot
    let task =
      if let executor {
        EffectTask.detached(executorPreference: executor, priority: run.priority) { await effect.main(run) }
      } else {
        EffectTask.detached(priority: run.priority) { await effect.main(run) }
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
    priority: TaskPriority? = nil, _ operation: sending @escaping @isolated(any) () async throws -> Void
  ) -> EffectTask {
    if let executor {
      EffectTask.detached(executorPreference: executor, priority: priority, operation: operation)
    } else {
      EffectTask.detached(priority: priority, operation: operation)
    }
  }

  /// Runs `body` as the task of the effect in `slot`: in a watched Station, a test clock can then
  /// tell which effect sleeps on it, and the executor follows the task from start to end.
  nonisolated func watching(_ slot: EffectSlotID, _ body: () async -> Void) async {
    if let executor {
      await WatchedTask.$current.withValue(WatchedTask(executor: executor, slot: slot)) {
        executor.taskBegan(slot)
        await body()
        executor.taskEnded(effectEnded: true)
      }
    } else {
      await body()
    }
  }

  /// A slot's task has ended: starts what waited for it, and takes what that sends to the actor.
  nonisolated(nonsending) func taskEnded(_ slot: EffectSlotID) async {
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

/// A `run` effect started in a slot: what its task runs, and what its ``Pour`` knows of it (where
/// it was written, and whether its operation has returned: what its pour sends from then on
/// escaped it).
///
/// It does not hold the `run`: only the task keeps the operation. A pour the operation stores
/// somewhere keeps this object alive; were the operation held here too, the two would keep each
/// other alive for ever.
@usableFromInline
final class RunningEffect<State: Sendable, Action: Sendable>: Sendable {
  let handler: StateHandler<State, Action>
  let origin: EffectOrigin
  let pour: PourNumber
  let slot: EffectSlotID
  let ended = Atomic<Bool>(false)

  @usableFromInline
  init(handler: StateHandler<State, Action>, origin: EffectOrigin, pour: PourNumber, slot: EffectSlotID) {
    self.handler = handler
    self.origin = origin
    self.pour = pour
    self.slot = slot
  }

  /// The effect's task: runs its operation with the dependencies it was started with, then tells
  /// the registry it has ended.
  ///
  /// The task binds this effect and its `run`, whose dependencies are then in force, and which
  /// ``withTaskCancellation(id:cancelInFlight:fileID:line:operation:)`` finds.
  ///
  /// Inlined into the task, like ``StateHandler/perform(_:pour:)``: each async frame costs room in
  /// the task's allocator, held for as long as the effect waits.
  @inline(__always)
  func main(_ run: EffectRun<Action>) async {
    await DependencyValues.bind(effect: self, running: run) {
      guard !Task.isCancelled else { return }
      let pour = Pour<Action> { action, cancelled in
        await self.handler.receive(action, cancelled: cancelled, from: self)
      }
      if let executor = handler.executor {
        let watched = WatchedTask(executor: executor, slot: slot)
        await WatchedTask.$current.withValue(watched) {
          executor.taskBegan(slot)
          await handler.perform(run, pour: pour)
          executor.taskEnded(effectEnded: true)
        }
      } else {
        await handler.perform(run, pour: pour)
      }
    }
    ended.store(true, ordering: .releasing)
    await handler.taskEnded(slot)
  }
}

extension StateHandler {
  /// Takes an action a `run` effect poured to the actor; drops it, with a diagnostic if the Station
  /// is gone, when the pouring task is cancelled.
  nonisolated(nonsending) func receive(
    _ action: Action, cancelled: Bool, from effect: RunningEffect<State, Action>
  ) async {
    if cancelled {
      guard isReleased else { return }
      return report(
        Diagnostic(.droppedPour, "dropped \(Dump.line(action)): it was poured after its Station was released")
      )
    }
    if effect.ended.load(ordering: .acquiring), !isReleased {
      report(
        Diagnostic(
          .pourFromEndedEffect,
          "an action was poured from an effect that had already ended (started at \(effect.origin)): "
            + "\(Dump.line(action)); it is reduced, but nothing tracks it: make the effect's operation wait for what pours"
        ))
    }
    let (pour, slot, origin) = (effect.pour, effect.slot, effect.origin)
    guard let executor else { return await receive(action, pour: pour, slot: slot, origin: origin) }
    await executor.runAway { await self.receive(action, pour: pour, slot: slot, origin: origin) }
  }
}
