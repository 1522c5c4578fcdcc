/// A pour made while its key had no live Station (activating or passivating): the ``PourTask`` a
/// host returns for it stands for the pour its key's Station is given later, and forwards to it.
///
/// Waiting on it waits until the pour is posted, then as a Station's pour task does. A pour whose
/// key failed (its storage could not be read) was never reduced: waiting on it ends at once. A
/// cancellation before the pour is posted cancels it as soon as it is.
@usableFromInline
final class DeferredPour: PourTaskHost {
  private enum Target {
    case waiting
    case posted(PourTask)
    case failed(HostError?)
  }

  private struct State {
    var target = Target.waiting
    var cancelled = false
    var waiters = ParkedWaiters<PourTask?>()
  }

  private let state = Lock(State())

  init() {}

  /// The task a caller holds.
  var task: PourTask { PourTask(host: self, number: 1) }

  /// The pour was posted to its key's Station as `task`.
  func posted(_ task: PourTask) {
    let (waiters, cancel) = state.withLock { state -> ([UnsafeContinuation<PourTask?, Never>], Bool) in
      state.target = .posted(task)
      return (state.waiters.takeAll(), state.cancelled)
    }
    if cancel { task.cancel() }
    for waiter in waiters { waiter.resume(returning: task) }
  }

  /// The pour's key failed, with `error`: it will never be reduced.
  func failed(_ error: HostError?) {
    let waiters = state.withLock { state -> [UnsafeContinuation<PourTask?, Never>] in
      state.target = .failed(error)
      return state.waiters.takeAll()
    }
    for waiter in waiters { waiter.resume(returning: nil) }
  }

  /// Why the pour was never posted, if it failed.
  var failure: HostError? {
    state.withLock { state in
      if case .failed(let error) = state.target { return error }
      return nil
    }
  }

  /// The posted task, once there is one; `nil` if the key failed, or the waiting task was
  /// cancelled.
  func target() async -> PourTask? {
    await parked(
      issue: { state.withLock { $0.waiters.issue() } },
      park: { ticket, continuation in
        state.withLock { state in
          let ready: PourTask??
          switch state.target {
          case .posted(let task): ready = .some(task)
          case .failed: ready = .some(nil)
          case .waiting: ready = nil
          }
          return state.waiters.park(ticket, continuation, unless: ready, cancelled: nil)
        }
      },
      cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
      cancelled: nil)
  }

  @usableFromInline
  func reduce(through number: PourNumber) async -> Bool {
    guard let task = await target() else { return false }
    return await task.host.reduce(through: task.number)
  }

  @usableFromInline
  nonisolated(nonsending) func waitForPour(_ pour: PourNumber) async {
    guard let task = await target() else { return }
    await task.host.waitForPour(task.number)
  }

  @usableFromInline
  func cancel(pour: PourNumber) {
    let posted = state.withLock { state -> PourTask? in
      state.cancelled = true
      if case .posted(let task) = state.target { return task }
      return nil
    }
    posted?.cancel()
  }

  @usableFromInline
  func failure(of pour: PourNumber) -> HostError? {
    state.withLock { state in
      switch state.target {
      case .failed(let error): error
      case .posted(let task): task.failure
      case .waiting: nil
      }
    }
  }

  @usableFromInline
  func isCancelled(pour: PourNumber) -> Bool {
    state.withLock { state in
      if case .posted(let task) = state.target { return task.isCancelled }
      return state.cancelled
    }
  }
}
