import Dripper

/// Runs `operation` until it returns or `timeout` passes, whichever comes first, and returns
/// whether it returned: the harness's only use of real time.
///
/// On a timeout the operation is cancelled but not waited for: a task group would wait for it, and
/// an effect that ignores cancellation would then hold the test up for ever instead of failing it.
/// `ifNot` runs first, when the operation did not complete, before it is cancelled.
nonisolated(nonsending) func completes(
  within timeout: Duration, ifNot: () -> Void = {}, _ operation: @escaping @Sendable () async -> Void
) async -> Bool {
  // One ticket, resolved by whichever comes first: the operation's end, the timer, or the
  // cancellation of the waiting task. The others find it resolved and change nothing.
  let waiter = Lock(ParkedWaiters<Bool>())
  let tasks = Lock<[Task<Void, Never>]>([])
  let decide: @Sendable (UInt64, Bool) -> Void = { ticket, completed in
    waiter.withLock { $0.resolve(ticket, with: completed) }?.resume(returning: completed)
  }
  let completed = await parked(
    issue: {
      let ticket = waiter.withLock { $0.issue() }
      guard !Task.isCancelled else { return ticket }
      let work = Task {
        await operation()
        decide(ticket, true)
      }
      let timer = Task {
        try? await Task.sleep(for: timeout)
        decide(ticket, false)
      }
      tasks.withLock { $0 = [work, timer] }
      return ticket
    },
    park: { ticket, continuation in waiter.withLock { $0.park(ticket, continuation, cancelled: false) } },
    // Cancellation decides too, as `false`, so that a decision already made stands.
    cancel: { ticket in waiter.withLock { $0.resolve(ticket, with: false) } },
    cancelled: false)
  if !completed { ifNot() }
  // The timer is no longer needed; the operation is either over or abandoned.
  for task in tasks.withLock({ $0 }) { task.cancel() }
  return completed
}
