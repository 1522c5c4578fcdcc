/// Continuations parked until something happens, each under a ticket: the one solution, used
/// everywhere in the package, to the race between a task parking and its cancellation.
///
/// A task parks in two steps under its owner's lock: it takes a ticket, then (inside
/// `withUnsafeContinuation`) hands in its continuation. Cancellation can land between the two, or
/// after: ``cancel(_:)`` marks an issued ticket so that ``park(_:_:)`` refuses it, and takes back a
/// parked continuation so that it is resumed exactly once. ``parked(issue:park:cancel:)`` drives
/// the steps; a type keeps a `ParkedWaiters` in its locked state and calls it.
package struct ParkedWaiters<Value: Sendable> {
  private enum Entry: Sendable {
    /// The ticket's task is about to suspend.
    case issued
    case parked(UnsafeContinuation<Value, Never>)
    /// Its task was cancelled before it suspended.
    case cancelled
    /// What it waited for happened before it suspended, with this value.
    case resolved(Value)
  }

  private var entries: [UInt64: Entry] = [:]
  private var nextTicket: UInt64 = 0

  package init() {}

  /// Whether no continuation is parked or about to be.
  package var isEmpty: Bool { entries.isEmpty }

  /// How many continuations are parked.
  package var parkedCount: Int { entries.values.count { if case .parked = $0 { true } else { false } } }

  /// Whether the ticket was issued and its task has not parked yet.
  package func isIssued(_ ticket: UInt64) -> Bool {
    if case .issued = entries[ticket] { true } else { false }
  }

  /// A ticket for a task about to park.
  package mutating func issue() -> UInt64 {
    defer { nextTicket += 1 }
    entries[nextTicket] = .issued
    return nextTicket
  }

  /// Parks `continuation` under `ticket`; returns `false`, forgetting the ticket, if its task was
  /// cancelled meanwhile: the caller then resumes the continuation itself.
  package mutating func park(_ ticket: UInt64, _ continuation: UnsafeContinuation<Value, Never>) -> Bool {
    guard case .issued = entries[ticket] else {
      entries[ticket] = nil
      return false
    }
    entries[ticket] = .parked(continuation)
    return true
  }

  /// Parks `continuation` under `ticket` unless the ticket was resolved or cancelled meanwhile;
  /// returns the value to resume with now (the resolution, or `cancelled`), or `nil` when parked.
  package mutating func park(
    _ ticket: UInt64, _ continuation: UnsafeContinuation<Value, Never>, cancelled: Value
  ) -> Value? {
    switch entries[ticket] {
    case .issued:
      entries[ticket] = .parked(continuation)
      return nil
    case .resolved(let value):
      entries[ticket] = nil
      return value
    case .cancelled, .parked, nil:
      entries[ticket] = nil
      return cancelled
    }
  }

  /// What the ticket waited for happened: returns its continuation if it is parked, for the
  /// caller to resume with `value`; a ticket not parked yet is resumed with `value` when it parks.
  package mutating func resolve(_ ticket: UInt64, with value: Value) -> UnsafeContinuation<Value, Never>? {
    switch entries[ticket] {
    case .issued:
      entries[ticket] = .resolved(value)
      return nil
    case .parked(let continuation):
      entries[ticket] = nil
      return continuation
    case .cancelled, .resolved, nil:
      return nil
    }
  }

  /// Parks `continuation` unless `ready` already holds the value to resume it with, or its task
  /// was cancelled; returns the value to resume with now (`ready`, or `cancelled`), or `nil` when
  /// it is parked.
  package mutating func park(
    _ ticket: UInt64, _ continuation: UnsafeContinuation<Value, Never>, unless ready: Value?,
    cancelled: Value
  ) -> Value? {
    if let ready {
      entries[ticket] = nil
      return ready
    }
    return park(ticket, continuation) ? nil : cancelled
  }

  /// The ticket's task was cancelled: returns its continuation if it is parked, for the caller to
  /// resume once the lock is released.
  package mutating func cancel(_ ticket: UInt64) -> UnsafeContinuation<Value, Never>? {
    switch entries[ticket] {
    case .issued:
      entries[ticket] = .cancelled
      return nil
    case .parked(let continuation):
      entries[ticket] = nil
      return continuation
    case .resolved:
      entries[ticket] = nil
      return nil
    case .cancelled, nil:
      return nil
    }
  }

  /// Takes the continuation parked under `ticket`, if any.
  package mutating func take(_ ticket: UInt64) -> UnsafeContinuation<Value, Never>? {
    guard case .parked(let continuation) = entries[ticket] else { return nil }
    entries[ticket] = nil
    return continuation
  }

  /// Takes every parked continuation; tickets issued but not yet parked stay, so that their tasks
  /// park and are woken by the next call.
  package mutating func takeAll() -> [UnsafeContinuation<Value, Never>] {
    var taken: [UnsafeContinuation<Value, Never>] = []
    for (ticket, entry) in entries {
      guard case .parked(let continuation) = entry else { continue }
      entries[ticket] = nil
      taken.append(continuation)
    }
    return taken
  }
}

/// Parks the calling task with a ticket from `issue`: `park` runs under the owner's lock and either
/// parks the continuation (returning `nil`) or returns the value to resume with at once; `cancel`
/// runs, under the lock, if the task is cancelled, and returns the continuation to resume with
/// `cancelled`.
///
/// ```swift
/// let woken = await parked(
///   issue: { state.withLock { $0.waiters.issue() } },
///   park: { ticket, continuation in
///     state.withLock {
///       $0.waiters.park(ticket, continuation, unless: $0.isReady ? true : nil, cancelled: false)
///     }
///   },
///   cancel: { ticket in state.withLock { $0.waiters.cancel(ticket) } },
///   cancelled: false)
/// ```
package func parked<Value: Sendable>(
  issue: () -> UInt64,
  park: (UInt64, UnsafeContinuation<Value, Never>) -> Value?,
  cancel: @Sendable (UInt64) -> UnsafeContinuation<Value, Never>?,
  cancelled: Value
) async -> Value {
  let ticket = issue()
  return await withTaskCancellationHandler {
    await withUnsafeContinuation { continuation in
      if let now = park(ticket, continuation) { continuation.resume(returning: now) }
    }
  } onCancel: {
    cancel(ticket)?.resume(returning: cancelled)
  }
}

extension ParkedWaiters: Sendable {}
