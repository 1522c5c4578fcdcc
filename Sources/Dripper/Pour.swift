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
  let target: any PourTarget<Action>

  /// Creates a pour that hands actions to `sink`, for testing effects on their own.
  ///
  /// ```swift
  /// let received = Mutex<[Counter.Action]>([])
  /// try await effectOperation(Pour { action in received.withLock { $0.append(action) } })
  /// ```
  public init(_ sink: @escaping @Sendable (Action) async -> Void) {
    target = SinkTarget(sink: sink)
  }

  init(target: any PourTarget<Action>) {
    self.target = target
  }

  /// Pours `action` into the Station and returns once it has been reduced; drops it if the
  /// calling task is cancelled.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return target.drop(action) }
    await target.pour(action)
  }

  /// A pour of child actions that embeds them into this pour's actions.
  func embedding<Child: Sendable>(_ embed: @escaping @Sendable (Child) -> Action) -> Pour<Child> {
    Pour<Child>(target: EmbeddingTarget(base: target, embed: embed))
  }
}

/// Where a ``Pour`` sends its actions.
protocol PourTarget<Action>: AnyObject, Sendable {
  associatedtype Action: Sendable

  /// Takes the action to the Station, returning once it is reduced.
  func pour(_ action: Action) async

  /// The pouring task is cancelled: the action is dropped.
  func drop(_ action: Action)
}

/// A pour's target made of a closure.
private final class SinkTarget<Action: Sendable>: PourTarget {
  let sink: @Sendable (Action) async -> Void

  init(sink: @escaping @Sendable (Action) async -> Void) { self.sink = sink }

  func pour(_ action: Action) async { await sink(action) }

  func drop(_ action: Action) {}
}

/// A child's pour: embeds its actions into the parent's.
private final class EmbeddingTarget<Parent: Sendable, Action: Sendable>: PourTarget {
  let base: any PourTarget<Parent>
  let embed: @Sendable (Action) -> Parent

  init(base: any PourTarget<Parent>, embed: @escaping @Sendable (Action) -> Parent) {
    self.base = base
    self.embed = embed
  }

  func pour(_ action: Action) async { await base.pour(embed(action)) }

  func drop(_ action: Action) { base.drop(embed(action)) }
}
