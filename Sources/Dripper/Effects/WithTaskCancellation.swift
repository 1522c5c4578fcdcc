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
/// the operation's task is cancelled: as in TCA, the operation decides what that means (a sleep
/// throws `CancellationError`), and the effect around it goes on. An operation cancelled before it
/// started still runs, in a cancelled task. The call throws what `operation` throws, and nothing
/// when it throws nothing. A `PourTask` of the effect waits for the operation as for the rest of
/// the effect; cancelling the effect cancels the operation.
///
/// Where Dripper differs: `operation` runs in a task of its own, a child of the effect's in the
/// Station's bookkeeping, so it must be `@Sendable`. Outside an effect of a Station (in a plain
/// `Task`), in a task the effect started that outlived it, or once the effect is cancelled,
/// `operation` runs as it is, in the calling task, cancellable only with it.
public func withTaskCancellation<T: Sendable, Failure: Error>(
  id: some Hashable & Sendable, cancelInFlight: Bool = false,
  fileID: StaticString = #fileID, line: UInt = #line,
  operation: @escaping @Sendable () async throws(Failure) -> T
) async throws(Failure) -> T {
  guard let effect = DependencyValues.bound.effect else { return try await operation() }
  return try await effect.run(
    operation, id: id, cancelInFlight: cancelInFlight, origin: EffectOrigin(fileID: fileID, line: line)
  ).get()
}

/// A `run` effect, which can run a part of itself under a cancellation id; its task binds it (see
/// `DependencyValues.bind(effect:running:_:)`).
protocol EffectScope: AnyObject, Sendable {
  /// Runs `operation` in a task of its own under `id`, a child of this effect, and returns how it
  /// ended. Once this effect has ended or is cancelled, runs `operation` in the calling task.
  func run<T: Sendable, Failure: Error>(
    _ operation: @escaping @Sendable () async throws(Failure) -> T, id: some Hashable & Sendable,
    cancelInFlight: Bool, origin: EffectOrigin
  ) async -> Result<T, Failure>
}

extension RunningEffect: EffectScope {
  /// Starts the part as a child of this effect's slot, in the context the slot runs in: its pour,
  /// and the keys that cancel it, the innermost of which names its feature's namespace. The
  /// context is read from the registry here rather than kept by every running effect, so that an
  /// effect that never asks pays nothing for it.
  func run<T: Sendable, Failure: Error>(
    _ operation: @escaping @Sendable () async throws(Failure) -> T, id: some Hashable & Sendable,
    cancelInFlight: Bool, origin: EffectOrigin
  ) async -> Result<T, Failure> {
    guard let keys = handler.effects.keys(ofLive: slot) else { return await Result(catching: operation) }
    let outcome = Outcome<Result<T, Failure>>()
    var sends: [StateHandler<State, Action>.Send] = []
    do {
      let token = OutcomeToken(outcome)
      let part = Effect<Action>.run(
        operation: { _ in token.finish(with: await Result(catching: operation)) },
        fileID: origin.fileID, line: origin.line
      )
      .cancellable(id: id, cancelInFlight: cancelInFlight, fileID: origin.fileID, line: origin.line)
      handler.start(part, in: EffectContext(pour: pour, keys: keys), under: slot, sending: &sends)
    }
    // Cancelling others under the id may have let a `concatenate` go on to send an action.
    if !sends.isEmpty { await handler.deliver(sends) }
    if let result = await outcome.value { return result }
    // Cancelled before it started: it runs anyway, in a cancelled task, as a TCA operation would.
    let late = Task { await Result(catching: operation) }
    late.cancel()
    return await late.value
  }
}

/// Where a part's result arrives: once, from the part's task, or `nil` when the part is dropped
/// without running.
///
/// Not the host's `Promise`, whose waiter stops waiting when its task is cancelled: an effect
/// cancelled while its part runs waits for the part's own ending, as TCA's does, so that the part
/// never outlives the call and never runs twice.
private final class Outcome<Value: Sendable>: Sendable {
  private let state = Lock<(value: Value??, waiter: CheckedContinuation<Value?, Never>?)>((nil, nil))

  var value: Value? {
    get async {
      await withCheckedContinuation { continuation in
        let ready = state.withLock { state -> Value?? in
          if let value = state.value { return value }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    }
  }

  /// Sets the value, unless it was set before, and hands it to the waiter.
  func finish(with value: Value?) {
    let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
      guard state.value == nil else { return nil }
      state.value = .some(value)
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: value)
  }
}

/// Held by the part's operation alone: released unfinished (the part was cancelled before it ran,
/// or dropped), it finishes the outcome with `nil`.
private final class OutcomeToken<Value: Sendable>: Sendable {
  let outcome: Outcome<Value>

  init(_ outcome: Outcome<Value>) {
    self.outcome = outcome
  }

  func finish(with value: Value) {
    outcome.finish(with: value)
  }

  deinit {
    outcome.finish(with: nil)
  }
}

/// A `run` effect's payload, which holds the dependencies its task runs with.
protocol EffectDependencies: AnyObject, Sendable {
  var dependencies: DependencyValues { get }
}

extension EffectRun: EffectDependencies {}
