/// The number of a pour: the Station's mailbox numbers pours from 1, in the order they are made.
///
/// An effect belongs to the pour whose reduction started it, directly or through actions its
/// effects poured; a ``PourTask`` waits for them, and cancels them, by this number.
@usableFromInline
typealias PourNumber = UInt64

/// What a ``PourTask`` needs from the Station that made it.
@usableFromInline
protocol PourTaskHost: AnyObject, Sendable {
  /// Returns once every action poured so far has been reduced, and whether pour `number` may have
  /// effects in flight: `false` means that it has none, and never will.
  func reduce(through number: PourNumber) async -> Bool
  /// Waits until the pour's effects have ended; cancelling the waiting task cancels them.
  nonisolated(nonsending) func waitForPour(_ pour: PourNumber) async
  /// Cancels the pour's effects.
  func cancel(pour: PourNumber)
  /// Whether the pour was cancelled, or the Station is gone.
  func isCancelled(pour: PourNumber) -> Bool
  /// Where the pour's effects that have not ended were written, in the order they started.
  func pendingEffects(of pour: PourNumber) -> [String]
  /// Why the pour was not kept, if it was not: its host's key failed.
  func failure(of pour: PourNumber) -> HostError?
}

extension PourTaskHost {
  @usableFromInline
  func pendingEffects(of pour: PourNumber) -> [String] { [] }

  @usableFromInline
  func failure(of pour: PourNumber) -> HostError? { nil }
}

/// A handle on one pour: wait for it and everything it started, or cancel its effects.
///
/// ``Station/pour(_:)-(Action)`` returns one. Ignore it for fire-and-forget pours, or await it:
///
/// ```swift
/// await station.pour(.refresh).finish()   // reduced, and every effect it started has ended
/// ```
///
/// A `PourTask` is a small value: copies refer to the same pour.
public struct PourTask: Hashable, Sendable {
  @usableFromInline let host: any PourTaskHost
  @usableFromInline let number: PourNumber

  @inlinable
  init(host: any PourTaskHost, number: PourNumber) {
    self.host = host
    self.number = number
  }

  /// Waits until the action has been reduced and every effect it started has finished, including
  /// effects started by actions those effects poured.
  ///
  /// Cancelling the task that awaits `finish()` cancels those effects, so tying a pour to the
  /// lifetime of a task ties its effects to it too.
  @inlinable
  public func finish() async {
    if await host.reduce(through: number) {
      await host.waitForPour(number)
    }
  }

  /// Waits until the action has been reduced, or will never be; not for its effects.
  func reduced() async {
    _ = await host.reduce(through: number)
  }

  /// Cancels every effect the pour started, directly or through actions they poured.
  ///
  /// The action itself is still reduced if it has not been yet; effects it would start do not run.
  public func cancel() {
    host.cancel(pour: number)
  }

  /// Whether ``cancel()`` was called on this pour, or its Station has been released.
  ///
  /// The Station remembers each cancelled pour (a few bytes) for as long as it lives.
  public var isCancelled: Bool {
    host.isCancelled(pour: number)
  }

  /// Where the effects that ``finish()`` still waits for were written (`Feature.swift:42`), in the
  /// order they started: what to look at when a `finish()` does not return.
  ///
  /// `finish()` waits for the whole cascade, as TCA's does: an effect started by an action an
  /// effect of this pour poured belongs to this pour too, so an endless listener started that way
  /// keeps it from finishing (see <doc:EffectsAndCancellation>).
  public var pendingEffects: [String] {
    host.pendingEffects(of: number)
  }

  /// Why a pour into a ``StationHost``'s key was not kept: the host refused it (closed), or its
  /// key's storage failed before its entry, or an entry its effects made, was durable. `nil` for a
  /// pour that was kept, for one still on its way, and for a pour into a ``Station``.
  ///
  /// ```swift
  /// let task = host.pour(.deposit(5), to: "alice")
  /// await task.finish()
  /// if let failure = task.failure { log.error("not kept: \(failure)") }
  /// ```
  ///
  /// A key kept in a folder holds its effects until the entry of the action that started them is
  /// synced, so `finish()` returns after that; a pour that started none is reduced by then, and
  /// may still be on its way to the disk. ``StationHost/pour(_:to:id:effectsIn:)`` returns only once its
  /// entry is durable.
  public var failure: HostError? {
    host.failure(of: number)
  }

  /// Whether two tasks refer to the same pour.
  public static func == (lhs: PourTask, rhs: PourTask) -> Bool {
    lhs.host === rhs.host && lhs.number == rhs.number
  }

  /// Hashes the pour's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(host))
    hasher.combine(number)
  }
}

extension PourTask: CustomDebugStringConvertible {
  /// The pour's number and the effects it waits for: `PourTask(3, waiting for Feature.swift:42)`.
  public var debugDescription: String {
    let pending = pendingEffects
    return pending.isEmpty
      ? "PourTask(\(number))" : "PourTask(\(number), waiting for \(pending.joined(separator: ", ")))"
  }
}
