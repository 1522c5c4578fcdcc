public import Synchronization

/// The actor that owns a Station's state and runs its dripper.
///
/// Every action poured into a ``Station`` reaches its `StateHandler`, which reduces one action at a
/// time, synchronously: a reduction never suspends, so no reduction interleaves with another and
/// there is no reentrancy to reason about. Actions poured with ``Station/pour(_:)-(Action)`` wait in a
/// mailbox that the handler drains in batches; actions poured by effects are reduced as they
/// arrive, after whatever the mailbox already holds.
///
/// It is not API: callers hold a ``Station``, which owns its handler.
@usableFromInline
package final actor StateHandler<State: Sendable, Action: Sendable> {
  // The fields come in two groups, in this order on purpose. Every pour, from the producers'
  // threads, retains the handler (a write to its header) and reads `mailbox`; the handler, on its
  // own thread, reads and writes the second group for every action. Kept 128 bytes apart (two
  // cache lines, the unit x86 prefetches in), the two sides never fight over a line. Without the
  // gap, synchronous pours cost 2x in some runs and not others, depending on where the allocator
  // placed the handler (`dripper-bench --profile-overridden`: ~90 ns against ~47).

  // Read by pours, or rarely.

  /// The dependencies of the Station, in force while it reduces: boxed, so that the thread's
  /// reduction context refers to them without retaining them (see `ReductionContext`).
  @usableFromInline nonisolated let boxedDependencies: DependencyBox
  /// Where pours wait; an object of its own, written by every pour (see ``Mailbox``).
  @usableFromInline nonisolated let mailbox = Mailbox<Action>()
  @usableFromInline nonisolated let effects = EffectRegistry()
  /// In a Station watched by a test, the executor every task of the Station runs on, which knows
  /// when they have nothing left to run (see ``WatchedExecutor``); `nil` otherwise.
  @usableFromInline nonisolated let executor: WatchedExecutor?
  /// Who listens to the events effects emit.
  @usableFromInline nonisolated let events = EventPublisher()
  /// Whether a republication of the state is on its way (see ``requestRepublish()``).
  @usableFromInline nonisolated let republishRequested = Atomic<Bool>(false)
  /// That the state changed, for the readers of ``Station/states`` (see ``LatestStates``).
  nonisolated let latest = LatestStates()
  /// The number of ``latest`` among the publishers while it has readers.
  nonisolated let latestListener = Lock<UInt64?>(nil)

  /// Entry points compiled for the Station's concrete types. The hot path is `@inlinable` so that
  /// it is specialized where the Station is created; callers that only know the handler through a
  /// protocol (a ``PourTask``, an effect's ``Pour``) call these instead of unspecialized code.
  @usableFromInline let drainEntry: @Sendable (isolated StateHandler) -> Void
  @usableFromInline let receiveEntry: @Sendable (isolated StateHandler, Action, PourNumber) -> Void

  /// Called once, when the Station is released.
  @usableFromInline let onEnd: (@Sendable () -> Void)?
  /// For a host's key kept in a folder: what tells a pour's entries durable, or lost (see
  /// ``PourTask/failure``).
  @usableFromInline nonisolated let hostedPours: HostedPours?

  /// Keeps the fields above and those below at least 128 bytes apart.
  @usableFromInline let gap = ContentionGap()

  // Used by every reduction, on the handler's thread.
  //
  // The three variables below are not checked for exclusive access at run time: only the handler
  // touches them, in synchronous code that never reaches them twice at once (a reduction cannot
  // reach the handler), and each dynamic check took a global access set, ~10% of an awaited pour
  // (`dripper-bench --profile-awaited`: 171 ns with the checks, 150-160 without).

  /// The state.
  @usableFromInline @exclusivity(unchecked) var currentState: State
  /// The dripper's reduction, compiled for its concrete type (see ``Dripper/_reducer()``).
  @usableFromInline let reducer: @Sendable (inout State, Action) -> Effect<Action>
  /// The check after each reduction that cancels the effects of children a reducer around their
  /// `ifLet`, `forEach` or stack removed (see ``_Audit``); `nil` for a feature without children.
  @usableFromInline let audit: _Audit<State, Action>?
  /// What ``audit`` remembers between reductions.
  @usableFromInline @exclusivity(unchecked) var auditContext = _AuditContext()
  /// Whether ``auditContext`` missed reductions: the check is skipped while no effect runs or
  /// starts, as there is nothing to cancel, and learns the children afresh when it runs again.
  @usableFromInline @exclusivity(unchecked) var auditMissedReductions = false
  /// Who watches the state, told after each reduction.
  @usableFromInline nonisolated let publishers = StatePublishers<State>()
  /// The number of the last pour taken from the mailbox: the scheduled drain task
  /// compares it with ``Mailbox/poured`` without taking the mailbox's lock.
  @usableFromInline nonisolated let taken = Atomic<PourNumber>(0)
  /// The batch being reduced; its storage swaps with the mailbox's, batch after batch.
  @usableFromInline @exclusivity(unchecked) var batch: [Action?] = []
  /// Actions sent with `Effect.send` by the reduction in progress, reduced before the next batch
  /// item.
  @usableFromInline @exclusivity(unchecked) var followUps: [Send] = []
  /// The highest number of a pour whose reduction, or an action its effects sent, started an
  /// effect (see ``reduce(through:)``).
  @usableFromInline @exclusivity(unchecked) var lastPourWithEffects: PourNumber = 0

  /// Keeps the fields above off the line of whatever the allocator places after the handler.
  @usableFromInline let trailingGap = ContentionGap()

  @inlinable
  init(
    initialState: State, dripper: some Dripper<State, Action>, dependencies: DependencyValues,
    onEnd: (@Sendable () -> Void)? = nil
  ) {
    var state = initialState
    let built = dripper._build()
    self.reducer = built.reduce
    self.audit = built.audit
    // A first look, so that the check knows the children there from the start: what leaves in the
    // first reduction is then seen to leave. Nothing runs yet, so there is nothing to cancel.
    var context = _AuditContext()
    if let audit = built.audit { _ = audit(&state, &context) }
    self.currentState = state
    self.auditContext = context
    var dependencies = dependencies
    dependencies.station = DependencyValues.nextStation()
    dependencies.followsReductions = true
    dependencies.stackElementIDs = StackElementIDs()
    dependencies.prepareSharing()
    self.boxedDependencies = DependencyBox(dependencies)
    self.onEnd = onEnd
    self.hostedPours = HostedPours.of(dependencies)
    self.executor = Self.makeExecutor(for: dependencies)
    self.drainEntry = { (handler: isolated StateHandler) in handler.takeAndReduceBatch() }
    self.receiveEntry = { (handler: isolated StateHandler, action: Action, pour: PourNumber) in
      handler.reduceReceived(action, pour: pour)
    }
    startSharing(initialState)
  }

  /// The state, once every action poured before this read has been reduced.
  @inlinable
  package var state: State {
    drainMailbox()
    return currentState
  }

  /// Reads part of the state without copying the rest out of the actor.
  @inlinable
  func read<Value: Sendable>(_ keyPath: any KeyPath<State, Value> & Sendable) -> Value {
    drainMailbox()
    return currentState[keyPath: keyPath]
  }

  /// Reads part of the state, computed by `body`, once every action poured before has been
  /// reduced.
  @inlinable
  func read<Value: Sendable>(_ body: @Sendable (borrowing State) -> Value) -> Value {
    drainMailbox()
    return body(currentState)
  }

  /// The dependencies of the Station, in force while it reduces.
  @usableFromInline
  nonisolated var dependencies: DependencyValues { boxedDependencies.values }

  // MARK: - Pouring

  /// Posts an action poured synchronously, scheduling a drain when the mailbox was idle.
  @inlinable
  nonisolated func post(_ action: Action) -> PourTask {
    let mailbox = self.mailbox
    let (number, scheduleDrain) = mailbox.state.withLock { state in
      let posted = state.post(action)
      // Stored under the lock, so that the count never goes back: a producer preempted after
      // unlocking would otherwise store its count over a later one's.
      mailbox.poured.store(posted.number, ordering: .relaxed)
      return posted
    }
    if scheduleDrain { scheduleDrainTask() }
    return PourTask(host: self, number: number)
  }

  /// Posts an action whose caller reduces it at once, with ``reduce(through:)``: a host's request,
  /// which waits for its reduction. No drain task is scheduled for it: a task spawned for a pour
  /// its caller drains finds nothing, lingers a timer's sleep and ends, work that made requests
  /// through an HTTP server slower. In a watched Station, whose executor must count a pour not
  /// yet reduced, it is posted as any pour.
  @inlinable
  nonisolated func postReducedByCaller(_ action: Action) -> PourTask {
    guard executor == nil else { return post(action) }
    let mailbox = self.mailbox
    let number = mailbox.state.withLock { state in
      let number = state.append(action)
      mailbox.poured.store(number, ordering: .relaxed)
      return number
    }
    return PourTask(host: self, number: number)
  }

  /// Reduces an action poured by the effect in `slot`, after the actions already in the mailbox;
  /// drops it if the effect was cancelled meanwhile.
  ///
  /// Whether the effect is still live is decided here, on the actor, as the action is about to be
  /// reduced, not as it was poured: a response poured while the reduction that ended its
  /// presentation ran must not reach the next presentation. Dropped silently, as TCA drops what a
  /// cancelled effect sends, when the pouring task has been cancelled since: it was on its way as
  /// the effect was cancelled, which its task could not have known. Dropped with a ``Diagnostic``
  /// (a test fails, naming where the effect was written) only when its child feature left the
  /// state and the pouring task is one the cancellation never reached, a task the effect started
  /// of its own: such an effect goes on working for a feature that is gone.
  ///
  /// Runs on the pouring task, so `Task.isCancelled` is that task's: cancelling a slot cancels its
  /// task on the actor, in the reduction that cancels it, before any later pour is received here.
  func receive(_ action: Action, pour: PourNumber, slot: EffectSlotID, origin: EffectOrigin) {
    guard !effects.isClosed else {
      return report(
        Diagnostic(.droppedPour, "dropped \(Dump.line(action)): it was poured after its Station was released")
      )
    }
    switch effects.liveness(slot) {
    case .live, .ended:
      receiveEntry(self, action, pour)
    case .cancelled:
      return
    case .childLeft:
      guard !Task.isCancelled else { return }
      report(
        Diagnostic(
          .missingChild,
          "dropped \(Dump.line(action)): the effect started at \(origin) poured it after its child feature "
            + "left the state (dismissed, replaced by another, or removed)"))
    }
  }

  @inlinable
  func reduceReceived(_ action: Action, pour: PourNumber) {
    drainMailbox()
    withStationDependencies { reduce(action, pour: pour) }
  }

  /// Reduces every action poured before this call: they are all in the mailbox's next batch.
  ///
  /// Always through ``drainEntry``, compiled where the Station was created for its concrete
  /// types: called from code that is not (a function that is not inlinable, a protocol's witness,
  /// an effect's task), the drain would otherwise run unspecialized, looking up generic metadata
  /// at every step of every reduction.
  @inlinable
  func drainMailbox() {
    drainEntry(self)
  }

  /// The drain itself, run by ``drainEntry`` only.
  ///
  /// The batch is taken out of the stored property for the whole drain, so that neither the
  /// mailbox's lock nor the loop reaches the handler for it: a closure that wrote `batch` itself
  /// made the compiler retain and release the handler around the lock, two atomic operations per
  /// drain.
  @inlinable
  func takeAndReduceBatch() {
    var actions: [Action?] = []
    swap(&actions, &batch)
    if let first = mailbox.state.withLock({ $0.take(into: &actions) }) {
      reduceBatch(&actions, startingAt: first)
    }
    swap(&actions, &batch)
  }

  /// Reduces `actions`, a batch taken from the mailbox whose first action is pour number `first`,
  /// and empties it.
  @inlinable
  func reduceBatch(_ actions: inout [Action?], startingAt first: PourNumber) {
    taken.store(first + PourNumber(actions.count) - 1, ordering: .relaxed)
    // Each action is moved out of its slot, not copied: a payload with references is released
    // once, after its reduction, instead of retained and released again (a binding action poured
    // synchronously: 87 ns before, 67-70 after).
    var number = first
    withStationDependencies {
      for index in actions.indices {
        if let action = actions[index].take() { reduce(action, pour: number) }
        number += 1
      }
    }
    if actions.count == 1, actions.capacity <= Self.retainedCapacity {
      // The batch of an awaited pour: cheaper than `removeAll`, a general range replacement.
      actions.removeLast()
    } else {
      actions.removeAll(keepingCapacity: actions.capacity <= Self.retainedCapacity)
    }
  }

  /// Runs `body`, reductions, with the Station's dependencies in force on this thread (see
  /// `ReductionContext`).
  @inlinable
  func withStationDependencies(_ body: () -> Void) {
    ReductionContext.reducing(with: boxedDependencies, body)
  }

  // MARK: - Reducing

  /// Reduces an action, then the actions its effects send, in order.
  @inlinable
  func reduce(_ action: Action, pour: PourNumber) {
    reduceOne(action, pour: pour)
    if !followUps.isEmpty { reduceFollowUps() }
  }

  @inlinable
  func reduceOne(_ action: Action, pour: PourNumber) {
    boxedDependencies.reducingPour.store(pour, ordering: .relaxed)
    var effect = reducer(&currentState, action)
    if let audit { effect = audited(effect, with: audit) }
    if publishers.isActive { publishers.publish(currentState) }
    if effect.isNone { return }
    perform(effect, pour: pour)
  }

  /// `effect` with the cancellations of the children that left the state in the reduction that
  /// returned it (see ``_Audit``). While no effect runs and the reduction starts none, no child has
  /// any to cancel: the check is skipped, which keeps a feature with lists and presentations as
  /// fast as one without while its effects are idle (`dripper-bench --filter composition`).
  @inlinable
  func audited(_ effect: Effect<Action>, with audit: _Audit<State, Action>) -> Effect<Action> {
    if effect.isNone, !effects.hasPoursWithEffects {
      auditMissedReductions = true
      return effect
    }
    if auditMissedReductions {
      // What it remembered may be stale: nothing ran meanwhile, so it learns what is there now.
      auditContext = _AuditContext()
      auditMissedReductions = false
    }
    return effect.merge(with: audit(&currentState, &auditContext))
  }

  /// Reduces the actions effects sent, in order, and those they send in turn. An action that a
  /// slot waits for (a part of a `concatenate`) is dropped if the slot was cancelled meanwhile,
  /// and tells the registry when it is reduced, which may start what waited for it.
  @usableFromInline
  func reduceFollowUps() {
    var index = 0
    while index < followUps.count {
      let next = followUps[index]
      index += 1
      guard let delivery = next.delivery else {
        reduceOne(next.action, pour: next.pour)
        continue
      }
      if effects.isLive(delivery) { reduceOne(next.action, pour: next.pour) }
      let (_, starts) = effects.update { state, after in state.delivered(delivery, &after) }
      if !starts.isEmpty {
        var sends: [Send] = []
        startWork(starts, sending: &sends)
        followUps.append(contentsOf: sends)
      }
    }
    // A one-time spike (a long chain of sends) gives its memory back.
    followUps.removeAll(keepingCapacity: followUps.capacity <= Self.retainedCapacity)
  }

  /// How many elements the Station's buffers keep room for between bursts.
  @usableFromInline static var retainedCapacity: Int { 1_024 }
}
