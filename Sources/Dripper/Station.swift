/// A running feature: the thing you hold, pour actions into, and read state from.
///
/// ```swift
/// let station = Station(initialState: Counter.State()) { Counter() }
/// station.pour(.increase)                        // synchronous, never blocks, in order
/// await station.pour(.decreaseLater).finish()    // waits for the reduction and its effects
/// let count = await station.count                // or: await station.state.count
/// ```
///
/// The state lives in an actor (the Station's `StateHandler`) that reduces one action at a time. ``pour(_:)-(Action)``
/// can be called from any thread or task without `await`; actions poured by one caller are reduced
/// in the order poured. Releasing the last reference to a Station cancels its effects; actions its
/// effects pour after that are dropped with a ``Diagnostic``.
@dynamicMemberLookup
public final class Station<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let core: Core

  /// What runs a Station: its own `StateHandler`, or, for a Station scoped to a child feature,
  /// its parent.
  @usableFromInline
  enum Core: Sendable {
    case root(StateHandler<State, Action>)
    case scoped(ScopedCore<State, Action>)
  }

  @usableFromInline
  init(core: Core) {
    self.core = core
  }

  /// Starts a feature with its initial state and its dripper.
  ///
  /// ```swift
  /// let station = Station(initialState: Search.State()) {
  ///   Search()
  /// } withDependencies: {
  ///   $0.clock = ImmediateClock()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - initialState: The state the feature starts in.
  ///   - observers: Told of every action, transition and effect, of diagnostics (which then do
  ///     not go to standard error), and of the Station's end. See ``DripperObserver``. With none,
  ///     the Station reports to the ``DefaultObserver``, if one is set.
  ///   - dripper: The feature's logic.
  ///   - prepareDependencies: Changes the dependencies of this Station. It starts from those in
  ///     force where the Station is created.
  @inlinable
  public init<D: Dripper<State, Action>>(
    initialState: State,
    observers: [DripperObserver<State, Action>] = [],
    @DripperBuilder<State, Action> dripper: () -> D,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) {
    var dependencies = DependencyValues.current.captured
    prepareDependencies(&dependencies)
    let observers = observers.isEmpty ? DefaultObserver.observers(for: State.self, Action.self) : observers
    let handler: StateHandler<State, Action>
    if observers.isEmpty {
      handler = StateHandler(initialState: initialState, dripper: dripper(), dependencies: dependencies)
    } else {
      let observer = DripperObserver.combining(observers)
      if let diagnostic = observer.diagnostic { dependencies.reporter = diagnostic }
      handler =
        observer.watchesDripper
        ? StateHandler(
          initialState: initialState, dripper: dripper().observe(observer), dependencies: dependencies,
          onEnd: observer.end)
        : StateHandler(
          initialState: initialState, dripper: dripper(), dependencies: dependencies, onEnd: observer.end)
    }
    handler.stationStarted()
    core = .root(handler)
  }

  deinit {
    if case .root(let handler) = core { handler.stationReleased() }
  }

  /// The handler of a Station that is not scoped.
  var rootHandler: StateHandler<State, Action>? {
    if case .root(let handler) = core { handler } else { nil }
  }

  /// Pours an action into the Station, to be reduced after those poured before it.
  ///
  /// Never blocks and never suspends. Await the returned task to wait for the reduction and its
  /// effects, or ignore it.
  @inlinable
  @discardableResult
  public func pour(_ action: Action) -> PourTask {
    switch core {
    case .root(let handler): handler.post(action)
    case .scoped(let scoped): scoped.pour(action)
    }
  }

  /// Pours an action that the caller reduces at once, awaiting ``PourTask``'s reduction: no drain
  /// task is scheduled for it (see `StateHandler.postReducedByCaller(_:)`).
  @inlinable
  func pourReducedByCaller(_ action: Action) -> PourTask {
    switch core {
    case .root(let handler): handler.postReducedByCaller(action)
    case .scoped(let scoped): scoped.pour(action)
    }
  }

  /// The state, once every action poured before this read has been reduced.
  @inlinable
  public var state: State {
    get async {
      switch core {
      case .root(let handler): await handler.state
      case .scoped(let scoped): await scoped.state()
      }
    }
  }

  /// Reads part of the state, once every action poured before this read has been reduced.
  ///
  /// ```swift
  /// let count = await station.count
  /// ```
  ///
  /// A Station's own members come first: a state field named `state`, `states`, `changes` or
  /// `events` is read as `await station.state.changes`.
  @inlinable
  public subscript<Value: Sendable>(dynamicMember keyPath: any KeyPath<State, Value> & Sendable) -> Value {
    get async {
      switch core {
      case .root(let handler): await handler.read(keyPath)
      case .scoped(let scoped): await scoped.state()[keyPath: keyPath]
      }
    }
  }
}

extension Station {
  /// Returns once every action poured before the call has been reduced: a barrier for code that
  /// pours without awaiting and then needs the pours to have landed.
  ///
  /// ```swift
  /// for line in lines { station.pour(.append(line)) }
  /// await station.reducePending()      // every line is in the state now
  /// ```
  ///
  /// It does not wait for effects: await a pour's ``PourTask/finish()`` for that.
  public func reducePending() async {
    switch core {
    case .root(let handler): await handler.drainMailbox()
    case .scoped(let scoped): await scoped.reducePending()
    }
  }

  /// Cancels the Station's effects marked with `id`, from outside a reduction: what a reduction
  /// returning `.cancel(id: id)` does, and TCA's `Task.cancel(id:)`.
  ///
  /// ```swift
  /// station.pour(.startTimer)          // returns .run { … }.cancellable(id: TimerID())
  /// station.cancelEffects(id: TimerID())
  /// ```
  ///
  /// It reaches every effect under the id, wherever it waits: running, asleep in a `debounce`,
  /// queued behind another, or held in a throttle window. Ids are those of the Station's root
  /// dripper: a scoped Station cancels in its root Station (a `Scope` shares its parent's ids),
  /// and a `forEach` or `ifLet` child's ids, kept apart in its own namespace, are cancelled by
  /// the parent's reduction. It reaches the effects of the actions reduced so far: an action
  /// poured but not yet reduced starts its effects after it, so await ``reducePending()`` first
  /// to include it.
  public func cancelEffects(id: some Hashable & Sendable) {
    switch core {
    case .root(let handler): handler.cancelEffects(id: AnySendableHashable(id))
    case .scoped(let scoped): scoped.cancel(AnySendableHashable(id))
    }
  }
}

/// A Station running the dripper `D`.
public typealias StationOf<D: Dripper> = Station<D.State, D.Action>
