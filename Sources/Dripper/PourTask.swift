/// What a ``PourTask`` needs from the Station that made it.
@usableFromInline
protocol PourTaskHost: AnyObject, Sendable {
  /// Returns once every action poured so far has been reduced.
  func reduce(through sequence: UInt64) async
  /// Whether any pour has effects in flight.
  var hasLiveGroups: Bool { get }
  /// Waits until the pour's effects have ended; cancelling the waiting task cancels them.
  func waitForGroup(_ group: EffectGroupID) async
  /// Cancels the pour's effects.
  func cancel(group: EffectGroupID)
  /// Whether the pour was cancelled, or the Station is gone.
  func isCancelled(group: EffectGroupID) -> Bool
}

/// A handle on one pour: wait for it and everything it started, or cancel its effects.
///
/// ``Station/pour(_:)`` returns one. Ignore it for fire-and-forget pours, or await it:
///
/// ```swift
/// await station.pour(.refresh).finish()   // reduced, and every effect it started has ended
/// ```
///
/// A `PourTask` is a small value: copies refer to the same pour.
public struct PourTask: Hashable, Sendable {
  @usableFromInline let host: any PourTaskHost
  @usableFromInline let sequence: UInt64

  @inlinable
  init(host: any PourTaskHost, sequence: UInt64) {
    self.host = host
    self.sequence = sequence
  }

  /// Waits until the action has been reduced and every effect it started has finished, including
  /// effects started by actions those effects poured.
  ///
  /// Cancelling the task that awaits `finish()` cancels those effects, so tying a pour to the
  /// lifetime of a task ties its effects to it too.
  @inlinable
  public func finish() async {
    await host.reduce(through: sequence)
    if host.hasLiveGroups {
      await host.waitForGroup(sequence)
    }
  }

  /// Cancels every effect the pour started, directly or through actions they poured.
  ///
  /// The action itself is still reduced if it has not been yet; effects it would start do not run.
  public func cancel() {
    host.cancel(group: sequence)
  }

  /// Whether ``cancel()`` was called on this pour, or its Station has been released.
  ///
  /// The Station remembers each cancelled pour (a few bytes) for as long as it lives.
  public var isCancelled: Bool {
    host.isCancelled(group: sequence)
  }

  /// Whether two tasks refer to the same pour.
  public static func == (lhs: PourTask, rhs: PourTask) -> Bool {
    lhs.host === rhs.host && lhs.sequence == rhs.sequence
  }

  /// Hashes the pour's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(host))
    hasher.combine(sequence)
  }
}
