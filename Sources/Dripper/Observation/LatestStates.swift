/// That a Station's state changed, without the state: what ``Station/states`` readers wait on.
///
/// A reader that held each new state, or a buffer that held the newest until the reader took it,
/// shared the state's storage with the Station, so that the next reduction found a large array
/// shared and copied it whole: 1.8 copies of an 800 KB state per action, for states no reader might
/// ever look at (`dripper-bench --filter observation`). Here a reduction only counts a version and
/// wakes the readers waiting; a reader that wakes takes the state as it is then, on the Station's
/// actor. The state is copied at most once per value a reader takes, never once per action.
final class LatestStates: Sendable {
  private struct Core {
    /// Bumped by each reduction.
    var version: UInt64 = 0
    var waiters = ParkedWaiters<Void>()
    /// The Station is gone: readers take what they have not seen, then end.
    var isFinished = false
    /// Readers iterating now: the Station publishes to this only while there are any.
    var readers = 0
  }

  private let core = Lock(Core())

  /// A reduction changed the state: wakes the readers waiting.
  func published() {
    let woken = core.withLock { core -> [UnsafeContinuation<Void, Never>] in
      core.version &+= 1
      return core.waiters.isEmpty ? [] : core.waiters.takeAll()
    }
    for waiter in woken { waiter.resume() }
  }

  /// The version now, read on the Station's actor with the state it goes with.
  var version: UInt64 { core.withLock { $0.version } }

  /// Whether the Station is gone.
  var isFinished: Bool { core.withLock { $0.isFinished } }

  /// The Station is gone: wakes every reader, for the last state it has not seen.
  func finish() {
    let woken = core.withLock { core -> [UnsafeContinuation<Void, Never>] in
      core.isFinished = true
      return core.waiters.takeAll()
    }
    for waiter in woken { waiter.resume() }
  }

  /// Waits until the version passes `seen` or the Station is gone, or the task is cancelled.
  func wait(after seen: UInt64) async {
    await parked(
      issue: { core.withLock { $0.waiters.issue() } },
      park: { ticket, continuation in
        core.withLock { core in
          core.waiters.park(
            ticket, continuation, unless: core.version != seen || core.isFinished ? () : nil, cancelled: ())
        }
      },
      cancel: { ticket in core.withLock { $0.waiters.cancel(ticket) } },
      cancelled: ())
  }

  /// A reader starts; returns whether it is the first, which makes the Station publish here.
  func addReader() -> Bool {
    core.withLock { core in
      core.readers += 1
      return core.readers == 1
    }
  }

  /// A reader ends; returns whether it was the last.
  func removeReader() -> Bool {
    core.withLock { core in
      core.readers -= 1
      return core.readers == 0
    }
  }
}

/// How a pulling ``StateStream`` reads: the state and its version on the Station's actor, waits
/// for a newer one, and says when a reader starts and ends.
struct StatePuller<Element: Sendable>: Sendable {
  /// Starts a reader; `false` if the Station is gone.
  let start: @Sendable () -> Void
  /// The state now, its version, and whether the Station is gone.
  let read: @Sendable () async -> (Element, UInt64, Bool)
  /// Waits for a version other than the one given, the Station's end, or cancellation.
  let wait: @Sendable (UInt64) async -> Void
  /// Ends a reader.
  let end: @Sendable () -> Void
}

/// Ends a pulling reader when its iterator goes, however iteration ended.
final class PullingReader<Element: Sendable>: Sendable {
  let puller: StatePuller<Element>

  init(_ puller: StatePuller<Element>) {
    self.puller = puller
    puller.start()
  }

  deinit {
    puller.end()
  }
}
