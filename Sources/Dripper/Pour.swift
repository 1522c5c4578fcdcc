/// How an effect pours actions back into its Station.
///
/// An effect receives a `Pour` and calls it like a function:
///
/// ```swift
/// return .run { pour in
///   let fact = try await numberFact(count)
///   await pour(.factLoaded(fact))   // returns once `.factLoaded` has been reduced
/// }
/// ```
///
/// Actions poured by one effect are reduced in the order it poured them. Once the effect is
/// cancelled, what it pours is dropped; once its Station is released, what it pours is dropped
/// and reported as a ``Diagnostic``. A pour kept after the effect's operation returned (stored, or
/// handed to a task of its own) still reaches the Station, reported as a ``Diagnostic`` too:
/// nothing waits for it, so a test or a ``PourTask`` cannot see it coming.
public struct Pour<Action: Sendable>: Sendable {
  /// Takes an action to the Station, returning once it is reduced; `cancelled` says that the
  /// pouring task is cancelled, and the action must be dropped. It runs on its caller's executor,
  /// saving a no-op executor switch per pour (see `StateHandler+EffectTasks.swift`).
  let sink: nonisolated(nonsending) @Sendable (_ action: Action, _ cancelled: Bool) async -> Void

  /// Creates a pour that hands actions to `sink`, for testing effects on their own.
  ///
  /// ```swift
  /// let received = Mutex<[Counter.Action]>([])
  /// try await effectOperation(Pour { action in received.withLock { $0.append(action) } })
  /// ```
  public init(_ sink: @escaping @Sendable (Action) async -> Void) {
    self.sink = { action, cancelled in
      if !cancelled { await sink(action) }
    }
  }

  init(sink: nonisolated(nonsending) @escaping @Sendable (_ action: Action, _ cancelled: Bool) async -> Void)
  {
    self.sink = sink
  }

  /// Pours `action` into the Station and returns once it has been reduced; drops it if the
  /// calling task is cancelled.
  public func callAsFunction(_ action: Action) async {
    await sink(action, Task.isCancelled)
  }

  /// A pour of child actions that embeds them into this pour's actions.
  func embedding<Child: Sendable>(_ embed: @escaping @Sendable (Child) -> Action) -> Pour<Child> {
    let sink = self.sink
    return Pour<Child> { action, cancelled in await sink(embed(action), cancelled) }
  }
}
