import Dripper

/// Runs `operation` until it returns or `timeout` passes, whichever comes first, and returns
/// whether it returned: the harness's only use of real time.
///
/// On a timeout the operation is cancelled but not waited for: a task group would wait for it, and
/// an effect that ignores cancellation would then hold the test up for ever instead of failing it.
func completes(within timeout: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
  let waiter = Lock<CheckedContinuation<Bool, Never>?>(nil)
  let tasks = Lock<[Task<Void, Never>]>([])
  // The first to decide takes the continuation; it is resumed after the lock is released.
  let decide: @Sendable (Bool) -> Void = { completed in
    waiter.withLock { waiter in
      defer { waiter = nil }
      return waiter
    }?.resume(returning: completed)
  }
  let completed = await withTaskCancellationHandler {
    await withCheckedContinuation { continuation in
      waiter.withLock { $0 = continuation }
      if Task.isCancelled { return decide(false) }
      let work = Task {
        await operation()
        decide(true)
      }
      let timer = Task {
        try? await Task.sleep(for: timeout)
        decide(false)
      }
      tasks.withLock { $0 = [work, timer] }
    }
  } onCancel: {
    decide(false)
  }
  // The timer is no longer needed; the operation is either over or abandoned.
  for task in tasks.withLock({ $0 }) { task.cancel() }
  return completed
}
