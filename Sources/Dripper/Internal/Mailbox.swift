public import Synchronization

/// What a Station's ``Mailbox`` holds: the actions poured with ``Station/pour(_:)-(Action)``, waiting for
/// the `StateHandler`.
///
/// A pure state machine kept in a `Lock` by the mailbox. Each pour is posted: it is appended to
/// `pending` and takes the next pour number; the handler swaps the whole array out in one step
/// and reduces the batch outside the lock, so a burst of pours costs one lock per pour and one per
/// batch. At most one drain task is scheduled at a time: the pour that finds the mailbox idle
/// schedules it, and only that task clears the flag, so awaiting callers that drain the mailbox
/// themselves never cause a second task to be spawned.
@usableFromInline
struct MailboxState<Action: Sendable>: Sendable {
  /// Actions poured but not yet taken by the handler, oldest first: optional, so that the handler
  /// can move each out of the batch it takes instead of copying it.
  @usableFromInline var pending: [Action?] = []
  /// The number of the pour in `pending[0]`; pours are numbered from 1.
  @usableFromInline var firstPendingNumber: PourNumber = 1
  /// Whether a drain task has been scheduled and has not yet found the mailbox empty.
  @usableFromInline var drainScheduled = false

  /// The number of the next pour.
  @inlinable
  var nextNumber: PourNumber { firstPendingNumber + PourNumber(pending.count) }

  /// Posts an action, returning its pour's number and whether the caller must schedule a drain.
  @inlinable
  mutating func post(_ action: Action) -> (number: PourNumber, scheduleDrain: Bool) {
    let number = append(action)
    guard !drainScheduled else { return (number, false) }
    drainScheduled = true
    return (number, true)
  }

  /// Appends an action, returning its pour's number, and schedules no drain: what ``post(_:)``
  /// does first, and all that a pour its caller reduces at once needs
  /// (``StateHandler/postReducedByCaller(_:)``).
  @inlinable
  mutating func append(_ action: Action) -> PourNumber {
    let number = nextNumber
    pending.append(action)
    return number
  }

  /// Moves every pending action into `batch`, which must be empty, and returns the number of the
  /// first one's pour, or `nil` when nothing is pending.
  ///
  /// `batch` and `pending` swap storage, so the arrays' capacity is reused batch after batch.
  @inlinable
  mutating func take(into batch: inout [Action?]) -> PourNumber? {
    guard !pending.isEmpty else { return nil }
    let first = firstPendingNumber
    firstPendingNumber += PourNumber(pending.count)
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

/// Where a Station's pours wait for its `StateHandler`: the producers' side of the handler, its
/// ``MailboxState`` behind a lock and the number of the last pour.
///
/// Every pour writes here, from whatever thread pours, while the handler reduces on another. In an
/// object of its own, away from the handler's fields (the state, the batch), those writes do not
/// invalidate the cache lines the reductions work on; the gaps on both sides keep them off the
/// lines of whatever the allocator places next to it (the handler's dripper, its publishers).
@usableFromInline
final class Mailbox<Action: Sendable>: Sendable {
  @usableFromInline let leadingGap = ContentionGap()
  @usableFromInline let state = Lock(MailboxState<Action>())
  /// The number of the last pour, read by the drain task without the lock.
  @usableFromInline let poured = Atomic<PourNumber>(0)
  @usableFromInline let trailingGap = ContentionGap()

  @usableFromInline
  init() {}
}
