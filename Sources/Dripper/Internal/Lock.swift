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
/// happen. Each critical section here begins with an acquiring load of a word of ours and ends
/// with a releasing store to it, compiled into our (instrumented) modules, which give TSan that
/// edge.
///
/// **No convoys.** On Linux, `Mutex` is a priority-inheritance futex: when its holder releases it
/// with a thread asleep in the kernel, the kernel hands it to that thread, and nobody else may take
/// it until that thread has been scheduled. With more threads than cores pouring into one Station,
/// every hand-off then waits for a context switch: `dripper-bench --filter producers` measured 16
/// or 64 OS threads at 7–9 µs per pour instead of 30–100 ns, in runs where the convoy formed.
/// Here a thread that finds the mutex taken, or another thread waiting, takes a gate first, an
/// atomic flag, spinning briefly and then yielding its core (to the holder, if it was preempted)
/// until the gate is free; whoever comes first while it is free takes it. At most one thread at a
/// time waits for the mutex itself, so a released mutex is handed to a sleeping thread at most once
/// before the others queue at the gate. Critical sections are short throughout the package (decide
/// under the lock, act after it), so a waiter yields for a few microseconds at most. A thread that
/// finds the mutex free and nobody at the gate takes the mutex at once: one atomic operation fewer
/// than going through the gate every time, which made synchronous pours 24.9–25.3 ns instead of
/// 30.3–30.4 (`dripper-bench --filter core`), with 2 to 64 OS threads still within 1.0–1.8× one
/// thread (`--filter producers`). Elsewhere (`os_unfair_lock` on Apple platforms, which lets a
/// running thread take the lock) the gate is not needed.
///
/// **A failed try is a system call.** On Linux, `withLockIfAvailable` that finds the mutex taken
/// asks the kernel (`FUTEX_TRYLOCK_PI`), which also marks the futex as waited on, so that the
/// holder's unlock is a system call too. A flag of ours, set by each holder and checked before
/// trying, removed 95% of the futex calls of `dripper-bench --profile-cancellables` (3,300–6,500
/// per 100,000 effects instead of 98,000–114,000) and moved no timing (8.8–10.4 µs an effect
/// against 9.2–10.5, five runs each, alternately; `--filter producers` within its noise). It was
/// not kept: it costs every uncontended lock a store.
///
/// It is `package`: the package's tests use it so that `swift test --sanitize=thread` reports only
/// real races. It is not API.
@usableFromInline
package struct Lock<Value: ~Copyable>: ~Copyable, Sendable {
  @usableFromInline let mutex: Mutex<Value>
  /// Taken by a thread that waits for the mutex, on Linux, so that one thread at most waits in
  /// the kernel. Unused elsewhere, where the mutex alone serves.
  @usableFromInline let gate = Atomic<Bool>(false)
  /// Read by every holder as it enters and stored as it leaves, on Linux: the edge
  /// ThreadSanitizer needs from one holder to the next, since the mutex is taken and handed over
  /// in `libswiftSynchronization` and the kernel, which it does not see. Unused elsewhere.
  @usableFromInline let handOff = Atomic<Bool>(false)

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
      // Nobody waits at the gate: take the mutex at once if it is free, without the gate.
      if !gate.load(ordering: .relaxed) {
        let taken = try mutex.withLockIfAvailable {
          (value: inout sending Value) throws(E) -> sending Result in
          _ = handOff.load(ordering: .acquiring)
          defer { handOff.store(true, ordering: .releasing) }
          return try body(&value)
        }
        if let taken { return taken }
      }
      if !gate.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
        waitForGate()
      }
      defer { gate.store(false, ordering: .releasing) }
      return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
        _ = handOff.load(ordering: .acquiring)
        defer { handOff.store(true, ordering: .releasing) }
        return try body(&value)
      }
    #else
      return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
        try body(&value)
      }
    #endif
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
