public import Synchronization

/// A `Mutex` whose hand-offs ThreadSanitizer can see: the lock every part of the package uses.
///
/// On Linux, `Synchronization.Mutex` takes a contended lock in `libswiftSynchronization`, which is
/// not built with ThreadSanitizer; TSan then sees two threads touch the protected value with no
/// happens-before between them and reports a race that cannot happen. `Lock` adds that edge where
/// TSan can see it: each critical section begins with an acquiring load and ends with a releasing
/// store of a word next to the mutex, both compiled into our (instrumented) modules. The mutex
/// still provides the exclusion; the extra load and store are plain moves on x86 and cost nothing
/// measurable on the pour path (see `dripper-bench`).
///
/// It is `package`: the package's tests use it so that `swift test --sanitize=thread` reports only
/// real races. It is not API.
@usableFromInline
package struct Lock<Value: ~Copyable>: ~Copyable, Sendable {
  @usableFromInline let mutex: Mutex<Value>
  @usableFromInline let handoff = Atomic<UInt8>(0)

  /// Creates a lock holding `initialValue`.
  @inlinable
  package init(_ initialValue: consuming sending Value) {
    mutex = Mutex(initialValue)
  }

  /// Runs `body` with exclusive access to the value.
  @inlinable
  package borrowing func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      _ = handoff.load(ordering: .acquiring)
      defer { handoff.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }
}
