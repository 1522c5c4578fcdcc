extension Station {
  /// The state after each reduction, starting with the current state.
  ///
  /// ```swift
  /// for await state in station.states { render(state) }
  /// ```
  ///
  /// Each value is the state as it is when the consumer asks for the next one: a slow consumer sees
  /// the latest state, not a backlog, and the states it skips cost nothing. The state is taken on
  /// the Station's actor when the consumer's `next()` resumes, so a reduction never copies it for
  /// the stream; the value the consumer holds shares the state's storage until the next reduction
  /// changes it, which then copies what it changes (a large array, whole) — once per value taken,
  /// never once per action. ``StateStream/buffering(_:)`` with `.unbounded` delivers every state
  /// instead, and keeps each from its reduction until it is taken: a copy per reduction. A scoped
  /// Station's states are its part of its parent's, delivered only when that part changes (when it
  /// is `Equatable`).
  public var states: StateStream<State> {
    switch core {
    case .root(let handler): handler.latestStates()
    case .scoped(let scoped): scoped.source.stream(key: nil, slice: { $0 }, isDuplicate: scoped.isDuplicate)
    }
  }

  /// The value at `keyPath`, starting with the current one, then each time it changes.
  ///
  /// ```swift
  /// for await count in station.observe(\.count) { print(count) }
  /// ```
  ///
  /// Observers of the same key path share one computation per reduction, and only a value that
  /// changed is delivered: a thousand observers of an unchanged slice cost one comparison.
  @inlinable
  public func observe<Value: Equatable & Sendable>(
    _ keyPath: any KeyPath<State, Value> & Sendable
  ) -> StateStream<Value> {
    let key = SliceKey(keyPath)
    switch core {
    case .root(let handler):
      return handler.stream(key: key, slice: { $0[keyPath: keyPath] }, isDuplicate: { $0 == $1 })
    case .scoped(let scoped):
      return scoped.source.stream(key: key, slice: { $0[keyPath: keyPath] }, isDuplicate: { $0 == $1 })
    }
  }

  /// A value computed from the state, starting with the current one, then each time it changes.
  ///
  /// ```swift
  /// for await count in station.observe({ $0.items.count }) { print(count) }
  /// ```
  @inlinable
  public func observe<Value: Equatable & Sendable>(
    _ slice: @escaping @Sendable (State) -> Value
  ) -> StateStream<Value> {
    switch core {
    case .root(let handler): handler.stream(key: nil, slice: slice, isDuplicate: { $0 == $1 })
    case .scoped(let scoped): scoped.source.stream(key: nil, slice: slice, isDuplicate: { $0 == $1 })
    }
  }

  /// Each state with the one before it, to react to the parts that changed: see ``Changed``.
  ///
  /// The first element is the current state, with no state before it (``Changed/previous`` is
  /// `nil`), so every ``Changed/ifChanged(_:_:)`` runs for it: a consumer draws everything once,
  /// then only what changes.
  public var changes: StateChanges<State> { StateChanges(states: states) }

  /// A memoized projection of the state: see ``Derived``.
  ///
  /// ```swift
  /// let visible = station.derived { $0.todos.filter { !$0.isDone } }
  /// ```
  public func derived<Value: Equatable & Sendable>(
    _ compute: @escaping @Sendable (State) -> Value
  ) -> Derived<Value> {
    source.derived(slice: compute, isDuplicate: { $0 == $1 }, owner: self)
  }

  /// The events effects emit with ``Effect/emit(_:)`` from now on, of one type.
  ///
  /// ```swift
  /// for await toast in station.events(of: Toast.self) { show(toast) }
  /// ```
  ///
  /// None is dropped however slow the consumer; events emitted before listening are not replayed.
  public func events<Event: Sendable>(of type: Event.Type = Event.self) -> AsyncStream<Event> {
    source.events.events(of: type)
  }

  /// Where the Station's states come from.
  var source: any StateSource<State> {
    switch core {
    case .root(let handler): handler
    case .scoped(let scoped): scoped.source
    }
  }
}
