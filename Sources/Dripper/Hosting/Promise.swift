/// A value given once, awaited by any number of tasks: the Station a host hands a read of a key
/// once the key is resident.
@usableFromInline
final class Promise<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var waiters = ParkedWaiters<Value?>()
  }

  private let state = Lock(State())

  init() {}

  /// Gives the value; a second value is ignored.
  func fulfill(_ value: Value) {
    let waiters = state.withLock { state -> [UnsafeContinuation<Value?, Never>] in
      guard state.value == nil else { return [] }
      state.value = value
      return state.waiters.takeAll()
    }
    for waiter in waiters { waiter.resume(returning: value) }
  }

  /// The value, once given; `nil` if the waiting task is cancelled first.
  var value: Value? {
    get async {
      // Given already, as a request's outcome is once its caller has reduced it: no suspension.
      if let value = state.withLock({ $0.value }) { return value }
      return await parked(
        issue: { state.withLock { $0.waiters.issue() } },
        park: { ticket, continuation in
          state.withLock { state in
            state.waiters.park(ticket, continuation, unless: state.value.map { .some($0) }, cancelled: nil)
          }
        },
        cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
        cancelled: nil)
    }
  }
}
