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
/// cancelled, what it pours is dropped.
public struct Pour<Action: Sendable>: Sendable {
  let sink: @Sendable (Action) async -> Void

  /// Creates a pour that hands actions to `sink`, for testing effects on their own.
  ///
  /// ```swift
  /// let received = Mutex<[Counter.Action]>([])
  /// try await effectOperation(Pour { action in received.withLock { $0.append(action) } })
  /// ```
  public init(_ sink: @escaping @Sendable (Action) async -> Void) {
    self.sink = sink
  }

  /// Pours `action` into the Station and returns once it has been reduced; does nothing if the
  /// calling task is cancelled.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    await sink(action)
  }

  /// A pour of child actions that embeds them into this pour's actions.
  func embedding<Child: Sendable>(_ embed: @escaping @Sendable (Child) -> Action) -> Pour<Child> {
    let sink = self.sink
    return Pour<Child> { await sink(embed($0)) }
  }
}
