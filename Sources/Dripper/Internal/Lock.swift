public import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The lock every part of the package uses: a `Mutex` that ThreadSanitizer can see through and
/// that keeps its throughput when many threads contend for it.
///
/// **Seen by ThreadSanitizer.** On Linux, `Synchronization.Mutex` takes a contended lock in
/// `libswiftSynchronization`, which is not built with ThreadSanitizer; TSan then sees two threads
/// touch the protected value with no happens-before between them and reports a race that cannot
/// happen. Each critical section here begins with an acquiring atomic operation and ends with a
/// releasing one, compiled into our (instrumented) modules, which give TSan that edge.
///
/// **No convoys.** On Linux, `Mutex` is a priority-inheritance futex: when its holder releases it
/// with a thread asleep in the kernel, the kernel hands it to that thread, and nobody else may take
/// it until that thread has been scheduled. With more threads than cores pouring into one Station,
/// every hand-off then waits for a context switch: `dripper-bench --filter producers` measured 16
/// or 64 OS threads at 7–9 µs per pour instead of 30–100 ns, in runs where the convoy formed.
/// Here a thread first takes a gate, an atomic flag, spinning briefly and then yielding its core
/// (to the holder, if it was preempted) until the gate is free; whoever comes first while it is
/// free takes it. The mutex inside is then never contended, and never enters the kernel. Critical
/// sections are short throughout the package (decide under the lock, act after it), so a waiter
/// yields for a few microseconds at most. Elsewhere (`os_unfair_lock` on Apple platforms, which
/// lets a running thread take the lock) the gate is not needed.
///
/// It is `package`: the package's tests use it so that `swift test --sanitize=thread` reports only
/// real races. It is not API.
@usableFromInline
package struct Lock<Value: ~Copyable>: ~Copyable, Sendable {
  @usableFromInline let mutex: Mutex<Value>
  /// Taken by the thread in the critical section, on Linux: the word whose acquiring and
  /// releasing operations ThreadSanitizer sees. Unused elsewhere, where the mutex alone serves.
  @usableFromInline let gate = Atomic<Bool>(false)

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
    #if os(Linux)
      if !gate.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
        waitForGate()
      }
      defer { gate.store(false, ordering: .releasing) }
    #endif
    return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      try body(&value)
    }
  }

  #if os(Linux)
    /// Takes the gate once it is free: spins a little (the holder is likely running and about to
    /// leave), then yields the core between tries.
    @usableFromInline
    borrowing func waitForGate() {
      var tries = 0
      while true {
        if !gate.load(ordering: .relaxed),
          gate.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        {
          return
        }
        tries += 1
        if tries > 32 { sched_yield() }
      }
    }
  #endif
}
