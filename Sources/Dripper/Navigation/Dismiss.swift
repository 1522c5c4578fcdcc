public import Synchronization

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
/// pushed on a stack with ``Dripper/forEach(_:action:destination:)``: it pours the presentation's
/// `.dismiss` (or the stack's `.popFrom(id:)`) into the parent, which ends the presentation and
/// cancels the child's effects, including the one that called it. Called anywhere else, it does
/// nothing and reports a ``Diagnostic`` of kind ``Diagnostic/Kind/notPresented``.
public struct DismissEffect: Sendable {
  @usableFromInline let dismiss: (@Sendable () async -> Void)?

  /// A dismissal that runs `dismiss`; `nil` for the value outside any presentation.
  @usableFromInline
  init(_ dismiss: (@Sendable () async -> Void)?) {
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
  /// pushed on a stack (by ``Dripper/forEach(_:action:destination:)``), in its reductions and its
  /// effects.
  public var isPresented: Bool {
    get { presented || (presentation?.isPresenting ?? false) }
    set {
      presented = newValue
      presentation = nil
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
      try await DependencyValues.$current.withValue(values) { try await operation(pour) }
    }
    var boundHandler: (@Sendable (any Error, Pour<Action>) async -> Void)?
    if let handler = self.handler {
      boundHandler = { error, pour in
        var values = DependencyValues.current
        values.dismiss = DismissEffect { await pour(dismissal) }
        await DependencyValues.$current.withValue(values) { await handler(error, pour) }
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
    // In a Station's reduction: raise its depth, two stores; binding values again would cost
    // more than the reduction. The drain task has the depth in a task-local of its own, one
    // reference to read; an awaiting caller's task, which the Station does not burden with a
    // second binding, finds it in the values.
    if let depth = PresentationDepth.current ?? current.presentation {
      depth.enter()
      defer { depth.leave() }
      return body()
    }
    // A dripper reduced outside a Station (a direct `reduce` call): bind the values.
    var values = current
    values.presented = true
    var result: Result?
    bind(values) { result = body() }
    return result!
  }
}

/// How deep in presented features a Station's reduction in progress is: raised by a presentation
/// or a stack around its child's reduction, read by ``DependencyValues/isPresented``.
///
/// Only the Station's actor writes it, synchronously around a reduction, and only that reduction
/// reads it; effects capture ``DependencyValues/isPresented`` instead.
@usableFromInline
package final class PresentationDepth: Sendable {
  /// The depth of the Station whose drain task this is, bound with its dependencies for the task's
  /// whole life: a second task-local so that a presentation reads one reference, not a copy of
  /// every value. Not bound where a Station binds its values per reduction (an awaiting caller's
  /// task): a second binding there would cost every awaited pour more than it saves a stack.
  @usableFromInline @TaskLocal static var current: PresentationDepth?

  @usableFromInline let depth: Atomic<Int>

  @usableFromInline
  init() { depth = Atomic(0) }

  @inlinable
  var isPresenting: Bool { depth.load(ordering: .relaxed) > 0 }

  @inlinable
  func enter() { depth.store(depth.load(ordering: .relaxed) + 1, ordering: .relaxed) }

  @inlinable
  func leave() { depth.store(depth.load(ordering: .relaxed) - 1, ordering: .relaxed) }
}
