public import Dispatch
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
/// atomic flag; whoever comes first while it is free takes it, and the gate is never handed to a
/// sleeping thread. At most one thread at a time waits for the mutex itself, so a released mutex is
/// handed to a sleeping thread at most once before the others queue at the gate. A thread that
/// finds the mutex free and nobody at the gate takes the mutex at once: one atomic operation fewer
/// than going through the gate every time, which made synchronous pours 24.9–25.3 ns instead of
/// 30.3–30.4 (`dripper-bench --filter core`). Elsewhere (`os_unfair_lock` on Apple platforms,
/// which lets a running thread take the lock) the gate is not needed.
///
/// **Waiters sleep.** A thread that finds the gate taken tries it 64 times (the holder is likely
/// running and about to leave), then sleeps on a semaphore until a thread leaves the gate, and
/// competes for it again. Before, waiters yielded their core in a loop: with the holder
/// descheduled, each burned its share of the cores the whole time (`LockTests`: a waiter spent
/// 128 ms of processor time while a holder kept the lock 300 ms, against under 10 ms asleep). With
/// 2 to 64 OS threads pouring at once into one Station, `--filter producers` reads 1.1–1.8x one
/// thread, against 1.2–1.7x for the yielding loop, in two runs of each, alternated.
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
  /// First, and it stays first: declared after the atomics below (so that they would lie at fixed
  /// offsets in generic code), the suite's debug build aborted in three runs of three with
  /// `malloc(): invalid next size` (Swift 6.3.1, November 29, 2026). Not understood; not kept.
  @usableFromInline let mutex: Mutex<Value>
  /// Taken by a thread that waits for the mutex, on Linux, so that one thread at most waits in
  /// the kernel. Unused elsewhere, where the mutex alone serves.
  @usableFromInline let gate = Atomic<Bool>(false)
  /// How many threads are asleep at the gate, or about to sleep, and not yet woken.
  @usableFromInline let parked = Atomic<Int>(0)
  /// What sleepers at the gate sleep on, made when the first one parks, retained here until the
  /// lock goes. Published through an `Atomic` of ours, not `AtomicLazyReference`: that one's `load`
  /// and `storeIfNil` are not inlinable, so their acquire and release happen in
  /// `libswiftSynchronization`, where ThreadSanitizer does not see them, and it reported a sleeper
  /// reading the semaphore its maker had just made (CI, 24f7731).
  @usableFromInline let sleepers = Atomic<Unmanaged<GateSleepers>?>(nil)
  /// Read by every holder as it enters and stored as it leaves, on Linux: the edge
  /// ThreadSanitizer needs from one holder to the next, since the mutex is taken and handed over
  /// in `libswiftSynchronization` and the kernel, which it does not see. Unused elsewhere.
  @usableFromInline let handOff = Atomic<Bool>(false)

  /// Creates a lock holding `initialValue`.
  @inlinable
  package init(_ initialValue: consuming sending Value) {
    mutex = Mutex(initialValue)
  }

  deinit {
    sleepers.load(ordering: .acquiring)?.release()
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
      if !gate.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
        waitForGate()
      }
      defer { openGate() }
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
    /// leave), then sleeps until a holder leaves it, and tries again. A woken thread competes for
    /// the gate with any other; the gate is never handed to it, so no convoy forms.
    @usableFromInline
    borrowing func waitForGate() {
      var tries = 0
      while true {
        if !gate.load(ordering: .relaxed),
          gate.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        {
          return
        }
        tries += 1
        if tries < 64 { continue }
        tries = 0
        // Says it sleeps, then looks once more: a holder that leaves after this sees it and
        // wakes one sleeper; one that left before left the gate free.
        let sleepers = madeSleepers()
        parked.add(1, ordering: .sequentiallyConsistent)
        if !gate.load(ordering: .sequentiallyConsistent),
          gate.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        {
          // Took it after all: withdraw. If a leaver counted this thread already, its wake-up
          // goes to a sleeper, or to the next thread to sleep, which tries again: waiting for
          // it here, holding the gate, could wait for ever, if another sleeper took it.
          _ = withdrawOneSleeper()
          return
        }
        sleepers.semaphore.wait()
      }
    }

    /// Leaves the gate, waking one sleeper if there is one.
    @usableFromInline
    borrowing func openGate() {
      gate.store(false, ordering: .sequentiallyConsistent)
      if parked.load(ordering: .sequentiallyConsistent) > 0, withdrawOneSleeper() {
        sleepers.load(ordering: .acquiring)?.takeUnretainedValue().semaphore.signal()
      }
    }

    /// The sleepers' semaphore, made by the first thread to need it; another thread that made one
    /// at the same time drops its own.
    @usableFromInline
    borrowing func madeSleepers() -> GateSleepers {
      if let made = sleepers.load(ordering: .acquiring) { return made.takeUnretainedValue() }
      let mine = Unmanaged.passRetained(GateSleepers())
      let (exchanged, found) = sleepers.compareExchange(
        expected: nil, desired: mine, ordering: .acquiringAndReleasing)
      guard !exchanged, let found else { return mine.takeUnretainedValue() }
      mine.release()
      return found.takeUnretainedValue()
    }

    /// Takes one sleeper off the count; `false` if none is left to take.
    @usableFromInline
    borrowing func withdrawOneSleeper() -> Bool {
      var count = parked.load(ordering: .sequentiallyConsistent)
      while count > 0 {
        let (exchanged, found) = parked.compareExchange(
          expected: count, desired: count - 1, ordering: .sequentiallyConsistent)
        if exchanged { return true }
        count = found
      }
      return false
    }
  #endif
}

/// What threads asleep at a ``Lock``'s gate sleep on: a semaphore, signalled once per sleeper to
/// wake.
@usableFromInline
final class GateSleepers: Sendable {
  @usableFromInline let semaphore = DispatchSemaphore(value: 0)

  @usableFromInline
  init() {}
}
