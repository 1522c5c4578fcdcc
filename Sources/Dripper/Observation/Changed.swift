/// A state and the state before it, to react to the parts that changed.
///
/// ```swift
/// for await change in station.changes {
///   change.ifChanged(\.count) { print("count is now", $0) }
///   change.ifChanged(\.query, \.filter) { query, filter in reload(query, filter) }
/// }
/// ```
///
/// ``previous`` is the state this consumer saw last (`nil` the first time), so a slow consumer that
/// missed states still compares with what it saw.
public struct Changed<State: Sendable>: Sendable {
  /// The state seen before, or `nil` for the first.
  public let previous: State?
  /// The new state.
  public let current: State

  /// Creates a change.
  public init(previous: State?, current: State) {
    self.previous = previous
    self.current = current
  }

  /// Whether the value at `keyPath` differs from the previous state's (always, for the first).
  public func hasChanged<Value: Equatable>(_ keyPath: KeyPath<State, Value>) -> Bool {
    previous.map { $0[keyPath: keyPath] != current[keyPath: keyPath] } ?? true
  }

  /// Runs `body` with the new value at `keyPath` if it changed.
  public func ifChanged<Value: Equatable>(
    _ keyPath: KeyPath<State, Value>, _ body: (Value) throws -> Void
  ) rethrows {
    if hasChanged(keyPath) { try body(current[keyPath: keyPath]) }
  }

  /// Runs `body` with the new values at two key paths if either changed.
  public func ifChanged<First: Equatable, Second: Equatable>(
    _ first: KeyPath<State, First>, _ second: KeyPath<State, Second>,
    _ body: (First, Second) throws -> Void
  ) rethrows {
    if hasChanged(first) || hasChanged(second) {
      try body(current[keyPath: first], current[keyPath: second])
    }
  }
}

/// The states of a Station paired with the ones before them: see ``Station/changes``.
public struct StateChanges<State: Sendable>: AsyncSequence, Sendable {
  /// A `StateChanges` never throws.
  public typealias Failure = Never

  let states: StateStream<State>

  /// Creates the iterator; the subscription starts at its first `next()`.
  public func makeAsyncIterator() -> Iterator {
    Iterator(states: states.makeAsyncIterator())
  }

  /// Iterates a ``StateChanges``.
  public struct Iterator: AsyncIteratorProtocol {
    var states: StateStream<State>.Iterator
    var previous: State?

    /// The next change, or `nil` once iteration ends.
    public mutating func next() async -> Changed<State>? {
      guard let current = await states.next() else { return nil }
      defer { previous = current }
      return Changed(previous: previous, current: current)
    }
  }
}
