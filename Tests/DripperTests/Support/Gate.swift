import Dripper
import Synchronization

/// A one-shot signal: tasks wait on it until it is opened.
///
/// Tests use it to make effects wait for the test, or the test wait for an effect, without sleeping
/// to hope something happened. Waiting ends early if the waiting task is cancelled.
final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var waiters = ParkedWaiters<Void>()
  }

  private let state = Lock(State())

  init() {}

  var isOpen: Bool { state.withLock { $0.isOpen } }

  /// Opens the gate, releasing every waiter.
  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      return state.waiters.takeAll()
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Waits until the gate is open, or the task is cancelled.
  func wait() async {
    await parked(
      issue: { state.withLock { $0.waiters.issue() } },
      park: { ticket, continuation in
        state.withLock { $0.waiters.park(ticket, continuation, unless: $0.isOpen ? () : nil, cancelled: ()) }
      },
      cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
      cancelled: ())
  }
}

/// Collects values from concurrent tasks.
final class Recorder<Value: Sendable>: Sendable {
  private let values = Lock<[Value]>([])

  init() {}

  func append(_ value: Value) { values.withLock { $0.append(value) } }

  var all: [Value] { values.withLock { $0 } }
}

/// How long a test waits for something that should happen before it calls it lost: the only use
/// of real time in the tests, as a bound. A passing test never waits it out, so it is generous:
/// under a sanitizer, with the stress tests running alongside, a task can wait seconds for a thread.
let patience = Duration.seconds(60)

/// Runs `operation`, returning `nil` if it takes longer than `timeout`. `operation` must end when
/// cancelled.
func withTimeout<T: Sendable>(
  _ timeout: Duration = patience, _ operation: @escaping @Sendable () async -> T
) async -> T? {
  await withTaskGroup(of: T?.self) { group in
    group.addTask { await operation() }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return nil
    }
    let first = await group.next()!
    group.cancelAll()
    return first
  }
}
