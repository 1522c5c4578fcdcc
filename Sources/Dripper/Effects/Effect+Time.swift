extension Effect {
  /// Delays the effect until `duration` has passed without another effect debounced under the
  /// same id: the last of a burst runs, the others are cancelled.
  ///
  /// ```swift
  /// case .queryChanged(let query):
  ///   state.query = query
  ///   return .run { pour in await pour(.results(try await api.search(query))) }
  ///     .debounce(id: SearchID(), for: .milliseconds(300), clock: clock)
  /// ```
  ///
  /// Cancelling the id with ``cancel(id:)`` cancels the waiting effect too, wherever it sits: in
  /// a `merge`, a `concatenate`, or a child feature.
  ///
  /// - Parameters:
  ///   - id: The id the burst shares.
  ///   - duration: How long the effect waits for a quieter moment.
  ///   - clock: The clock it waits on: the `clock` dependency, so that tests control time.
  ///   - fileID: Where the call is written, named if a test ends with the effect still waiting.
  ///   - line: The line of the call.
  public func debounce(
    id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration>,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> Self {
    if isNone { return self }
    let origin = EffectOrigin(fileID: fileID, line: line)
    return Self(.delayed(EffectDelay(clock: clock, duration: duration, origin: origin), self))
      .cancellable(id: id, cancelInFlight: true, fileID: fileID, line: line)
  }

  /// Runs at most one effect per `interval` under the id.
  ///
  /// The first effect runs at once and opens a window of `interval`. Effects throttled under the
  /// same id during the window wait for its end, when one of them runs and opens the next window:
  /// the latest one if `latest` is `true`, the first one otherwise. The others never run.
  ///
  /// ```swift
  /// case .scrolled(let offset):
  ///   return .send(.loadMore(offset))
  ///     .throttle(id: LoadMoreID(), for: .seconds(1), clock: clock, latest: true)
  /// ```
  ///
  /// Cancelling the id with ``cancel(id:)`` cancels the held effect and closes the window: the
  /// next effect throttled under the id runs at once. The Station forgets a window once it has
  /// ended, so ids can be made freely (one per row, say).
  ///
  /// - Parameters:
  ///   - id: The id whose effects are throttled together.
  ///   - interval: The length of a window.
  ///   - clock: The clock windows are timed on: the `clock` dependency, so that tests control time.
  ///   - latest: Whether the last effect of a window runs at its end (`true`) or the first one.
  ///   - fileID: Where the call is written, named if a test ends with an effect still held.
  ///   - line: The line of the call.
  public func throttle(
    id: some Hashable & Sendable, for interval: Duration, clock: any Clock<Duration>, latest: Bool,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> Self {
    if isNone { return self }
    let throttle = EffectThrottle(
      id: AnySendableHashable(id), clock: clock, interval: interval, latest: latest,
      origin: EffectOrigin(fileID: fileID, line: line))
    return Self(.throttled(throttle, self))
  }
}

/// The error ``withTimeout(_:clock:operation:)`` throws when time runs out.
public struct TimeoutError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The time the operation was given.
  public let timeout: Duration

  /// Creates the error for an operation given `timeout`.
  public init(timeout: Duration) { self.timeout = timeout }

  /// A one-line explanation.
  public var description: String { "timed out after \(timeout)" }
}

/// Runs `operation`, throwing ``TimeoutError`` if it has not finished when `timeout` has passed on
/// `clock`; the operation is then cancelled.
///
/// Use it inside a `run` effect, with the clock dependency so that tests control time:
///
/// ```swift
/// return .run { pour in
///   let profile = try await withTimeout(.seconds(5), clock: clock) {
///     try await api.profile(id)
///   }
///   await pour(.profileLoaded(profile))
/// } catch: { error, pour in
///   await pour(.profileFailed(error is TimeoutError ? "timed out" : "\(error)"))
/// }
/// ```
///
/// The timer is a sleep on `clock`. On Linux, a `ContinuousClock` sleep that is cancelled keeps
/// about 2 KB until its deadline (swiftlang/swift#60441): thousands of long timeouts a second that
/// end early hold memory for their full length, so keep timeouts as short as the work allows.
public func withTimeout<Value: Sendable>(
  _ timeout: Duration,
  clock: any Clock<Duration>,
  operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  // In a test, both tasks are followed from start to end (see `WatchedTask`), so that a test clock
  // waits for an operation it woke to finish its work before it moves time to the deadline.
  try await withThrowingTaskGroup(of: Value.self) { group in
    group.addTask { try await WatchedTask.tracking { try await operation() } }
    group.addTask {
      try await WatchedTask.tracking {
        try await clock.sleep(for: timeout)
        throw TimeoutError(timeout: timeout)
      }
    }
    defer { group.cancelAll() }
    return try await WatchedTask.joining { try await group.next()! }
  }
}
