/// Where a Station's states come from: its own handler, or its parent's, projected.
@usableFromInline
protocol StateSource<State>: Sendable {
  associatedtype State: Sendable

  /// A stream of a slice of the state, deduplicated by `isDuplicate` when given, shared with other
  /// streams of the same `key`.
  func stream<Value: Sendable>(
    key: SliceKey?, slice: @escaping @Sendable (State) -> Value,
    isDuplicate: (@Sendable (Value, Value) -> Bool)?
  ) -> StateStream<Value>

  /// A memoized slice that lives as long as the returned ``Derived``, which keeps `owner` alive.
  func derived<Value: Sendable>(
    slice: @escaping @Sendable (State) -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?,
    owner: any Sendable
  ) -> Derived<Value>

  /// The events of the Station (and, for a scoped Station, of its root).
  var events: EventPublisher { get }
}
