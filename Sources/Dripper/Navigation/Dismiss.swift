/// Dismisses the presented feature whose effect calls it: `@Dependency(\.dismiss)`.
///
/// ```swift
/// struct Editor: Dripper {
///   @Dependency(\.dismiss) var dismiss
///   …
///   case .saveTapped:
///     return .run { _ in
///       try await save()
///       await dismiss()
///     }
/// }
/// ```
///
/// Call it from an effect of a child presented with ``Dripper/ifLet(_:action:then:)-(_,CasePath<Self.Action,PresentationAction<ChildAction>>,_)`` or
/// pushed on a stack with ``Dripper/forEach(_:action:destination:)-(_,CasePath<Self.Action,StackAction<ElementState,ElementAction>>,_)``: it pours the presentation's
/// `.dismiss` (or the stack's `.popFrom(id:)`) into the parent, which ends the presentation and
/// cancels the child's effects, including the one that called it. Called anywhere else, it does
/// nothing and reports a ``Diagnostic`` of kind ``Diagnostic/Kind/notPresented``.
public struct DismissEffect: Sendable {
  @usableFromInline let dismiss: (@Sendable () async -> Void)?

  /// A dismissal that runs `dismiss`; `nil` for the value outside any presentation.
  @usableFromInline
  package init(_ dismiss: (@Sendable () async -> Void)?) {
    self.dismiss = dismiss
  }

  /// A dismissal that runs `dismiss`: in a test, to see that a feature asked to be dismissed,
  /// as TCA's `DismissEffect { … }` does.
  ///
  /// ```swift
  /// let dismissed = LockIsolated(false)
  /// let station = TestStation(initialState: Editor.State()) { Editor() } withDependencies: {
  ///   $0.dismiss = DismissEffect { dismissed.setValue(true) }
  /// }
  /// await station.pour(.saveTapped)
  /// await station.finish()
  /// #expect(dismissed.value)
  /// ```
  public init(_ dismiss: @escaping @Sendable () async -> Void) {
    self.dismiss = dismiss
  }

  /// Ends the presentation of the feature that calls it.
  public func callAsFunction(fileID: StaticString = #fileID, line: UInt = #line) async {
    guard let dismiss else {
      DependencyValues.reportCurrent(
        Diagnostic(
          .notPresented,
          "dismiss() was called at \(fileID):\(line), in a feature that is not presented: nothing was dismissed"
        ))
      return
    }
    await dismiss()
  }
}

extension DependencyValues {
  /// Ends the presentation of the feature whose effect calls it: see ``DismissEffect``.
  public var dismiss: DismissEffect {
    get { self[DismissKey.self] }
    set { self[DismissKey.self] = newValue }
  }

  /// Whether the feature reading it is presented (by ``Dripper/ifLet(_:action:then:)-(_,CasePath<Self.Action,PresentationAction<ChildAction>>,_)``) or
  /// pushed on a stack (by ``Dripper/forEach(_:action:destination:)-(_,CasePath<Self.Action,StackAction<ElementState,ElementAction>>,_)``), in its reductions and its
  /// effects.
  public var isPresented: Bool {
    get { presented || (followsReductions && ReductionContext.depth > 1) }
    set {
      presented = newValue
      followsReductions = false
    }
  }
}

private enum DismissKey: DependencyKey {
  static var liveValue: DismissEffect { DismissEffect(nil) }
  static var testValue: DismissEffect { DismissEffect(nil) }
}

extension Effect {
  /// This effect with `dismiss` bound, in each of its `run`s, to pouring `dismissal` through the
  /// run's own ``Pour``.
  @usableFromInline
  func dismissing(with dismissal: Action) -> Self {
    rebuilt(sending: { $0 }, running: { $0.dismissing(with: dismissal) })
  }
}

extension EffectRun {
  /// This run with `dismiss` bound to pouring `dismissal`.
  func dismissing(with dismissal: Action) -> EffectRun {
    let operation = self.operation
    let bound: @Sendable (Pour<Action>) async throws -> Void = { pour in
      var values = DependencyValues.current
      values.dismiss = DismissEffect { await pour(dismissal) }
      try await DependencyValues.bind(values) { try await operation(pour) }
    }
    var boundHandler: (@Sendable (any Error, Pour<Action>) async -> Void)?
    if let handler = self.handler {
      boundHandler = { error, pour in
        var values = DependencyValues.current
        values.dismiss = DismissEffect { await pour(dismissal) }
        await DependencyValues.bind(values) { await handler(error, pour) }
      }
    }
    return EffectRun(
      priority: priority, operation: bound, handler: boundHandler, dependencies: dependencies, origin: origin)
  }
}

extension DependencyValues {
  /// Runs `body` with ``isPresented`` set: what a presentation and a stack do around each of their
  /// children's reductions.
  @inlinable
  static func presenting<Result>(_ body: () -> Result) -> Result {
    // In a reduction: raise the thread's depth, two stores (see `ReductionContext`); binding
    // values again would cost more than the reduction.
    if let result = ReductionContext.deeper(body) { return result }
    // A dripper reduced outside a Station (a direct `reduce` call): bind the values.
    var values = current
    values.presented = true
    return bind(values, body)
  }
}
