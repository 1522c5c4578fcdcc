/// A value behind a lock, readable and changeable from any thread: swift-concurrency-extras'
/// `LockIsolated`, which TCA's tests use to record what a dependency was called with.
///
/// ```swift
/// let saved = LockIsolated<[Todo]>([])
/// let station = TestStation(initialState: Todos.State()) { Todos() } withDependencies: {
///   $0.todoStore.save = { todos in saved.setValue(todos) }
/// }
/// await station.pour(.saveTapped)
/// #expect(saved.value == [milk])
/// ```
///
/// Each access takes the lock on its own: to read and then write as one step, use
/// ``withValue(_:)``.
public final class LockIsolated<Value: Sendable>: Sendable {
  private let lock: Lock<Value>

  /// Creates a lock around `value`.
  public init(_ value: Value) {
    lock = Lock(value)
  }

  /// The value now.
  public var value: Value { lock.withLock { $0 } }

  /// Replaces the value.
  public func setValue(_ newValue: Value) {
    lock.withLock { $0 = newValue }
  }

  /// Reads and changes the value as one step, under the lock.
  ///
  /// ```swift
  /// let count = LockIsolated(0)
  /// count.withValue { $0 += 1 }
  /// ```
  ///
  /// Do not touch this `LockIsolated` from `operation`: the lock is not re-entrant.
  @discardableResult
  public func withValue<Result: Sendable, Failure: Error>(
    _ operation: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try lock.withLock { (value: inout Value) throws(Failure) -> Result in try operation(&value) }
  }
}

extension LockIsolated: Equatable where Value: Equatable {
  /// Whether both hold equal values now.
  public static func == (lhs: LockIsolated, rhs: LockIsolated) -> Bool { lhs.value == rhs.value }
}

/// A value isolated to an actor: swift-concurrency-extras' `ActorIsolated`, kept for TCA tests
/// that use it. ``LockIsolated`` needs no `await` and serves the same purpose.
///
/// ```swift
/// let events = ActorIsolated<[String]>([])
/// await events.withValue { $0.append("opened") }
/// #expect(await events.value == ["opened"])
/// ```
public final actor ActorIsolated<Value: Sendable> {
  /// The value now.
  public private(set) var value: Value

  /// Creates an actor holding `value`.
  public init(_ value: Value) {
    self.value = value
  }

  /// Replaces the value.
  public func setValue(_ newValue: Value) {
    value = newValue
  }

  /// Reads and changes the value as one step on the actor.
  @discardableResult
  public func withValue<Result: Sendable>(_ operation: @Sendable (inout Value) throws -> Result) rethrows
    -> Result
  {
    try operation(&value)
  }
}
