/// Runs `operation` as a part of the current effect that ``Effect/cancel(id:)`` cancels by `id`:
/// TCA's `withTaskCancellation(id:cancelInFlight:)`.
///
/// ```swift
/// case .searchTapped:
///   return .run { [query = state.query] pour in
///     await pour(.started)
///     let results = try await withTaskCancellation(id: SearchID(), cancelInFlight: true) {
///       try await api.search(query)
///     }
///     await pour(.results(results))
///   }
/// case .cancelTapped:
///   return .cancel(id: SearchID())   // stops the search, not the effect around it
/// ```
///
/// The id is scoped as a ``Effect/cancellable(id:cancelInFlight:fileID:line:)`` id written in the
/// same feature: to its Station, and to its child in a list or a presentation. With
/// `cancelInFlight`, operations and effects running under `id` are cancelled first. Cancelled,
/// the operation's task is cancelled and this throws `CancellationError`; the effect around it goes
/// on. A `PourTask` of the effect waits for the operation as for the rest of the effect.
///
/// Where Dripper differs: `operation` runs in a task of its own, a child of the effect's in the
/// Station's bookkeeping, so it must be `@Sendable`; outside an effect of a Station (in a plain
/// `Task`), it runs as it is, cancellable only with its task.
public func withTaskCancellation<T: Sendable>(
  id: some Hashable & Sendable, cancelInFlight: Bool = false,
  fileID: StaticString = #fileID, line: UInt = #line,
  operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  guard let effect = DependencyValues.current.effect else { return try await operation() }
  return try await effect.run(
    operation, id: id, cancelInFlight: cancelInFlight, origin: EffectOrigin(fileID: fileID, line: line))
}

/// The `run` effect a task belongs to, which can run a part of itself under a cancellation id.
@usableFromInline
protocol EffectScope: AnyObject, Sendable {
  /// Runs `operation` in a task of its own under `id`, a child of this effect; its result, or
  /// `CancellationError` when it is cancelled, even before it starts.
  func run<T: Sendable>(
    _ operation: @escaping @Sendable () async throws -> T, id: some Hashable & Sendable,
    cancelInFlight: Bool, origin: EffectOrigin
  ) async throws -> T
}

extension RunningEffect: EffectScope {
  @usableFromInline
  func run<T: Sendable>(
    _ operation: @escaping @Sendable () async throws -> T, id: some Hashable & Sendable,
    cancelInFlight: Bool, origin: EffectOrigin
  ) async throws -> T {
    let outcome = Outcome<T>()
    var sends: [StateHandler<State, Action>.Send] = []
    do {
      let token = OutcomeToken(outcome)
      let part = Effect<Action>.run(
        operation: { _ in token.finish(with: await Result { try await operation() }) },
        fileID: origin.fileID, line: origin.line
      )
      .cancellable(id: id, cancelInFlight: cancelInFlight, fileID: origin.fileID, line: origin.line)
      handler.start(part, in: context, under: slot, sending: &sends)
    }
    // Cancelling others under the id may have let a `concatenate` go on to send an action.
    if !sends.isEmpty { await handler.deliver(sends) }
    return try await outcome.value
  }
}

/// Where a part's result arrives: once, from the part's task, or as `CancellationError` when the
/// part is dropped without running.
private final class Outcome<T: Sendable>: Sendable {
  private let state = Lock<(result: Result<T, any Error>?, waiter: CheckedContinuation<T, any Error>?)>(
    (nil, nil))

  var value: T {
    get async throws {
      try await withCheckedThrowingContinuation { continuation in
        let ready = state.withLock { state -> Result<T, any Error>? in
          if let result = state.result { return result }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(with: ready) }
      }
    }
  }

  func finish(with result: Result<T, any Error>) {
    let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
      guard state.result == nil else { return nil }
      state.result = result
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(with: result)
  }
}

/// Held by the part's operation alone: released unfinished (the part was cancelled before it ran,
/// or dropped), it finishes the outcome with `CancellationError`.
private final class OutcomeToken<T: Sendable>: Sendable {
  let outcome: Outcome<T>

  init(_ outcome: Outcome<T>) {
    self.outcome = outcome
  }

  func finish(with result: Result<T, any Error>) {
    outcome.finish(with: result)
  }

  deinit {
    outcome.finish(with: .failure(CancellationError()))
  }
}
