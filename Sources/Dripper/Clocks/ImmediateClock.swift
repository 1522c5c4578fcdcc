import Synchronization

/// A clock whose sleeps return at once, moving its time forward: for previews, demos, and tests
/// that do not care about time.
///
/// ```swift
/// let station = Station(initialState: Search.State()) { Search() } withDependencies: {
///   $0.clock = ImmediateClock()   // the debounce fires at once
/// }
/// ```
public final class ImmediateClock: Clock, Sendable {
  /// A moment on an ``ImmediateClock``: the time it has slept through since it was created.
  public struct Instant: InstantProtocol, Hashable, Sendable {
    /// The time since the clock's start.
    public let offset: Duration

    /// Creates an instant `offset` after the clock's start.
    public init(offset: Duration = .zero) { self.offset = offset }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let current = Lock(Instant())

  /// Creates a clock at time zero.
  public init() {}

  /// The current time: the furthest deadline slept until so far.
  public var now: Instant { current.withLock { $0 } }

  /// The clock has no minimum resolution.
  public var minimumResolution: Duration { .zero }

  /// Returns at once (after a yield), moving the clock to `deadline`; throws `CancellationError` if
  /// the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { now in
      if now < deadline { now = deadline }
    }
    await Task.yield()
    try Task.checkCancellation()
  }
}

/// The clock of tests that did not choose one: it reports that it is unimplemented, then behaves
/// like an ``ImmediateClock``.
struct UnimplementedClock: Clock, Sendable {
  typealias Instant = ImmediateClock.Instant

  private let base = ImmediateClock()

  var now: Instant { base.now }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    DependencyValues.reportCurrent(
      Diagnostic(
        .unimplementedDependency,
        "unimplemented dependency 'clock' used in a test; set one, for example "
          + "'$0.clock = TestClock()' or 'ImmediateClock()'"))
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}
