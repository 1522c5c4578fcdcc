import Dispatch

/// The threads a host's storage blocks on: reading a key's folder, writing and syncing its entries,
/// its snapshots. OS threads, not tasks: a sync holds its thread for a millisecond, and the
/// cooperative pool has one thread a core.
///
/// One pool for the process, up to `maximumThreads`: a file system syncs many files at once far
/// faster than one after another (on the machine we develop on, ~890 syncs a second on one file,
/// ~8,800 over 50 files at once), so keys that write together are synced together. A thread is
/// started when work waits and none is idle, and ends after `idleSeconds` with nothing to do.
final class StorageThreads: Sendable {
  /// The process's pool.
  static let shared = StorageThreads(maximumThreads: 64)

  private struct State {
    var jobs: [@Sendable () -> Void] = []
    var next = 0
    var threads = 0
    var idle = 0
  }

  let maximumThreads: Int
  private let idleSeconds = 5
  private let state = Lock(State())
  private let wake = DispatchSemaphore(value: 0)

  init(maximumThreads: Int) {
    self.maximumThreads = max(1, maximumThreads)
  }

  /// Runs `job` on one of the pool's threads, as soon as one is free.
  func run(_ job: @escaping @Sendable () -> Void) {
    let start = state.withLock { state -> Bool in
      state.jobs.append(job)
      // A thread more while more jobs wait than threads sleep: a burst of syncs runs at once.
      guard state.jobs.count - state.next > state.idle, state.threads < maximumThreads else { return false }
      state.threads += 1
      return true
    }
    if start, !OSThread.start({ [self] in work() }) {
      // No thread to be had: the job waits for one of those running.
      state.withLock { $0.threads -= 1 }
    }
    wake.signal()
  }

  private func work() {
    while true {
      let job = state.withLock { state -> (@Sendable () -> Void)? in
        guard state.next < state.jobs.count else { return nil }
        let job = state.jobs[state.next]
        state.next += 1
        if state.next == state.jobs.count {
          state.jobs.removeAll(keepingCapacity: state.jobs.capacity <= 1_024)
          state.next = 0
        } else if state.next >= 1_024, state.next * 2 >= state.jobs.count {
          // Under a load that never lets the queue empty, what was taken goes now and then.
          state.jobs.removeFirst(state.next)
          state.next = 0
        }
        return job
      }
      if let job {
        job()
        continue
      }
      state.withLock { $0.idle += 1 }
      let woken = wake.wait(timeout: .now() + .seconds(idleSeconds)) == .success
      let retire = state.withLock { state -> Bool in
        state.idle -= 1
        guard !woken, state.next >= state.jobs.count else { return false }
        state.threads -= 1
        return true
      }
      if retire { return }
    }
  }
}
