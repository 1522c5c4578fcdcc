public import Synchronization

/// One slice of state and everyone who watches it: the slice is computed once per new input, and
/// compared with the last one; only a change reaches the watchers.
///
/// Publishing is `@inlinable` and reaches groups through closures made where the slice's type is
/// known, so that it runs specialized code: unspecialized generic code would look up type metadata
/// on every call.
@usableFromInline
final class SliceGroup<Input: Sendable, Value: Sendable>: Sendable {
  @usableFromInline
  struct Members {
    @usableFromInline var last: Value?
    /// The watchers' continuations, copied in O(1) to be yielded to outside the lock.
    @usableFromInline var watchers = MemberList<AsyncStream<Value>.Continuation>()
    /// Groups derived from this one's value.
    @usableFromInline var dependents = MemberList<@Sendable (Value) -> Void>()
    var dependentNumbers: [ObjectIdentifier: UInt64] = [:]
    /// The Station is gone: every watcher was finished, and a watcher added now is finished at once.
    var isFinished = false
    /// Watchers that found the group and are about to be added: the group is not empty while they
    /// are, so that it is not removed from its Station between the finding and the adding.
    @usableFromInline var joining = 0

    var isEmpty: Bool { watchers.isEmpty && dependents.isEmpty && joining == 0 }

    @usableFromInline
    init() {}
  }

  @usableFromInline let slice: @Sendable (Input) -> Value
  @usableFromInline let isDuplicate: (@Sendable (Value, Value) -> Bool)?
  @usableFromInline let members = Lock(Members())
  /// How many times the slice was computed, for tests of memoization.
  @usableFromInline let computations = Atomic<Int>(0)

  @usableFromInline
  init(slice: @escaping @Sendable (Input) -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?) {
    self.slice = slice
    self.isDuplicate = isDuplicate
  }

  /// Computes the slice of a new input and delivers it if it changed.
  @inlinable
  func receive(_ input: Input) {
    let value = slice(input)
    computations.add(1, ordering: .relaxed)
    var continuations: [AsyncStream<Value>.Continuation] = []
    var dependents: [@Sendable (Value) -> Void] = []
    let changed = members.withLock { members -> Bool in
      if let last = members.last, let isDuplicate, isDuplicate(last, value) { return false }
      members.last = value
      continuations = members.watchers.members
      dependents = members.dependents.members
      return true
    }
    guard changed else { return }
    for continuation in continuations { continuation.yield(value) }
    for dependent in dependents { dependent(value) }
  }

  /// The last value computed, or the value for `input` if none was.
  @usableFromInline
  func current(computingFrom input: @autoclosure () -> Input) -> Value {
    if let last = members.withLock({ $0.last }) { return last }
    let value = slice(input())
    computations.add(1, ordering: .relaxed)
    return members.withLock { members in
      if members.last == nil { members.last = value }
      return members.last!
    }
  }

  /// The last value computed, if any.
  var last: Value? { members.withLock { $0.last } }

  /// Adds a watcher, yielding the current value to it first; returns its number, or `nil` if its
  /// stream has already ended or the group is finished (the Station is gone), in which case the
  /// stream is finished. `joined` says the watcher's place was reserved when the group was found.
  func add(_ continuation: AsyncStream<Value>.Continuation, current: Value, joined: Bool = false) -> UInt64? {
    let number = members.withLock { members -> UInt64? in
      if joined { members.joining -= 1 }
      return members.isFinished ? nil : members.watchers.add(continuation)
    }
    guard let number else {
      continuation.finish()
      return nil
    }
    if case .terminated = continuation.yield(current) {
      remove(number)
      return nil
    }
    return number
  }

  /// Removes a watcher; returns whether the group has none left.
  @discardableResult
  func remove(_ number: UInt64) -> Bool {
    members.withLock { members in
      members.watchers.remove(number)
      return members.isEmpty
    }
  }

  /// Adds a group derived from this one's value.
  func add<Derivation>(dependent: SliceGroup<Value, Derivation>) {
    members.withLock { members in
      let number = members.dependents.add { [dependent] in dependent.receive($0) }
      members.dependentNumbers[ObjectIdentifier(dependent)] = number
    }
  }

  func remove(dependent: AnyObject) {
    members.withLock { members in
      if let number = members.dependentNumbers.removeValue(forKey: ObjectIdentifier(dependent)) {
        members.dependents.remove(number)
      }
    }
  }

  /// Ends every watcher's stream, and those added from now on: the Station is gone.
  @usableFromInline
  func finishAll() {
    let continuations = members.withLock { members in
      members.isFinished = true
      _ = members.dependents.removeAll()
      members.dependentNumbers.removeAll()
      return members.watchers.removeAll()
    }
    for continuation in continuations { continuation.finish() }
  }

  @usableFromInline
  var isEmpty: Bool { members.withLock { $0.isEmpty } }

  /// Adds a watcher whose stream may end at any time, even before it is added: the watcher is
  /// removed when it ends, and `onEmpty` runs if it was the group's last. `joined` says the
  /// watcher's place was reserved when the group was found (``StatePublishers/group(key:slice:isDuplicate:joining:)``).
  @usableFromInline
  func attach(
    _ continuation: AsyncStream<Value>.Continuation, current: Value, joined: Bool = false,
    onEmpty: @escaping @Sendable () -> Void
  ) {
    let membership = Lock(WatcherMembership.pending)
    continuation.onTermination = { [self] _ in
      let number = membership.withLock { state -> UInt64? in
        defer { state = .ended }
        if case .added(let number) = state { return number }
        return nil
      }
      if let number, remove(number) { onEmpty() }
    }
    guard let number = add(continuation, current: current, joined: joined) else {
      if isEmpty { onEmpty() }
      return
    }
    let endedAlready = membership.withLock { state -> Bool in
      if case .ended = state { return true }
      state = .added(number)
      return false
    }
    if endedAlready, remove(number) { onEmpty() }
  }
}

/// A slice group, whatever its input: what a ``Derived`` needs of it.
protocol ValueGroup<Value>: AnyObject, Sendable {
  associatedtype Value: Sendable
  func attach(
    _ continuation: AsyncStream<Value>.Continuation, current: Value, joined: Bool,
    onEmpty: @escaping @Sendable () -> Void)
  func add<Derivation>(dependent: SliceGroup<Value, Derivation>)
  func remove(dependent: AnyObject)
  var computations: Atomic<Int> { get }
}

extension SliceGroup: ValueGroup {}

/// Where a watcher stands while it is being added to a group that its stream may leave meanwhile.
private enum WatcherMembership {
  case pending
  case added(UInt64)
  case ended
}

/// A group whose watchers' streams can be ended.
protocol Finishing: AnyObject {
  func finishAll()
}

extension SliceGroup: Finishing {}
