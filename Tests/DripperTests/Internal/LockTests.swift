import Foundation
import Synchronization
import Testing

@testable import Dripper

/// The package's lock parks the threads that wait for it (issue 42).
/// A lock to share between threads and tasks (a `Lock` is not copyable).
private final class Counter: Sendable {
  let lock = Lock(0)
  /// What each waiter spent, in nanoseconds of processor time.
  let spent = Lock<[UInt64]>([])
}

@Suite struct LockTests {
  /// While a holder keeps the lock (descheduled, or sleeping as here), the threads that wait for
  /// it sleep: each uses a few milliseconds of processor time at most. Before, every waiter but
  /// one looped on `sched_yield`, each using its share of the cores the whole time (a tenth of the
  /// 300 ms hold each, or more, with 8 waiters on 2 cores).
  @Test func waitersSleepWhileTheHolderKeepsTheLock() async {
    let counter = Counter()
    await takeWhileHeld(counter, waiters: 8, holding: 300_000)
    #expect(counter.lock.withLock { $0 } == 8)
    let most = counter.spent.withLock { $0.max() ?? 0 }
    #expect(most < 10_000_000, "a waiter used \(most / 1_000_000) ms of processor time while it waited")
  }

  /// On many fresh locks, the first waiter to sleep makes the semaphore the others sleep on, and
  /// every waiter wakes and takes the lock. Under ThreadSanitizer this is where CI once saw a
  /// sleeper read the semaphore its maker had just made (24f7731): the semaphore was published by
  /// `AtomicLazyReference`, whose `load` and `storeIfNil` run in `libswiftSynchronization`, unseen
  /// by TSan. TSan then saw an edge only through the count of sleepers, and none when the reader
  /// counted itself before the maker did; this test does not force that order.
  @Test func everyWaiterSleepsOnTheSemaphoreTheFirstMade() async {
    for _ in 0..<40 {
      let counter = Counter()
      await takeWhileHeld(counter, waiters: 4, holding: 10_000)
      #expect(counter.lock.withLock { $0 } == 4)
    }
  }

  /// Holds `counter`'s lock on a thread of its own for `holding` microseconds, and meanwhile starts
  /// `waiters` threads that each add 1 under it and record the processor time they spent; returns
  /// once every waiter has.
  private func takeWhileHeld(_ counter: Counter, waiters: Int, holding: useconds_t) async {
    let held = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    Thread {
      counter.lock.withLock { _ in
        held.signal()
        usleep(holding)
      }
    }.start()
    held.wait()
    for _ in 0..<waiters {
      done.enter()
      Thread {
        let start = threadCPUNanoseconds()
        counter.lock.withLock { $0 += 1 }
        let spent = threadCPUNanoseconds() - start
        counter.spent.withLock { $0.append(spent) }
        done.leave()
      }.start()
    }
    await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
  }

  /// Many threads and tasks taking the lock at once: every increment counts, none waits for ever.
  @Test func manyThreadsAndTasksTakeItInTurn() async {
    let counter = Counter()
    let threads = 16
    let perThread = scaled(20_000)
    let done = DispatchGroup()
    for _ in 0..<threads {
      done.enter()
      Thread {
        for _ in 0..<perThread { counter.lock.withLock { $0 += 1 } }
        done.leave()
      }.start()
    }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 { group.addTask { for _ in 0..<perThread { counter.lock.withLock { $0 += 1 } } } }
    }
    await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
    #expect(counter.lock.withLock { $0 } == (threads + 4) * perThread)
  }
}
