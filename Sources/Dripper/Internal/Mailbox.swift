public import Synchronization

/// The queue of actions poured with ``Station/pour(_:)``, waiting for the `StateHandler`.
///
/// A pure state machine kept in a `Lock` by the handler. Pours append to `pending` and take the
/// next sequence number; the handler swaps the whole array out in one step and reduces the batch
/// outside the lock, so a burst of pours costs one lock per pour and one per batch. At most one
/// drain task is scheduled at a time: the pour that finds the mailbox idle schedules it, and only
/// that task clears the flag, so awaiting callers that drain the mailbox themselves never cause a
/// second task to be spawned.
@usableFromInline
struct Mailbox<Action: Sendable>: Sendable {
  /// Actions poured but not yet taken by the handler, oldest first: optional, so that the handler
  /// can move each out of the batch it takes instead of copying it.
  @usableFromInline var pending: [Action?] = []
  /// The sequence number of `pending[0]`; sequence numbers start at 1.
  @usableFromInline var firstPendingSequence: UInt64 = 1
  /// Whether a drain task has been scheduled and has not yet found the mailbox empty.
  @usableFromInline var drainScheduled = false

  /// The number of the next action poured.
  @inlinable
  var nextSequence: UInt64 { firstPendingSequence + UInt64(pending.count) }

  /// Appends an action, returning its sequence number and whether the caller must schedule a drain.
  @inlinable
  mutating func enqueue(_ action: Action) -> (sequence: UInt64, scheduleDrain: Bool) {
    let sequence = nextSequence
    pending.append(action)
    guard !drainScheduled else { return (sequence, false) }
    drainScheduled = true
    return (sequence, true)
  }

  /// Moves every pending action into `batch`, which must be empty, and returns the sequence number
  /// of the first one, or `nil` when nothing is pending.
  ///
  /// `batch` and `pending` swap storage, so the arrays' capacity is reused batch after batch.
  @inlinable
  mutating func take(into batch: inout [Action?]) -> UInt64? {
    guard !pending.isEmpty else { return nil }
    let first = firstPendingSequence
    firstPendingSequence += UInt64(pending.count)
    swap(&pending, &batch)
    return first
  }

  /// Called by the scheduled drain task when it has seen no activity: ends its turn if nothing is
  /// pending (the next pour schedules a new task), or returns `false` if it must drain.
  @inlinable
  mutating func endScheduledDrainIfEmpty() -> Bool {
    guard pending.isEmpty else { return false }
    drainScheduled = false
    return true
  }

  @inlinable
  init() {}
}

/// The producers' side of a `StateHandler`: the mailbox and the count of actions poured.
///
/// Every pour writes here, from whatever thread pours, while the handler reduces on another. In an
/// object of its own, away from the handler's fields (the state, the batch), those writes do not
/// invalidate the cache lines the reductions work on; the gaps on both sides keep them off the
/// lines of whatever the allocator places next to it (the handler's dripper, its publishers).
@usableFromInline
final class PourQueue<Action: Sendable>: Sendable {
  @usableFromInline let leadingGap = ContentionGap()
  @usableFromInline let mailbox = Lock(Mailbox<Action>())
  /// The sequence number of the last action poured, read by the drain task without the lock.
  @usableFromInline let poured = Atomic<UInt64>(0)
  @usableFromInline let trailingGap = ContentionGap()

  @usableFromInline
  init() {}
}
