/// A problem a Station reports instead of crashing or failing silently.
///
/// Diagnostics go to the Station's observers (see ``DripperObserver``) and, when it has none that
/// handle them, to standard error. A test harness turns them into test failures. A dripper reports
/// one of its own with ``Effect/report(_:)``, usually of kind ``Kind/other``.
public struct Diagnostic: Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// An effect threw an error and had no `catch` handler.
    case uncaughtError
    /// An action was poured after its Station was released, and was dropped.
    case droppedPour
    /// An action arrived for child state that is absent (an `ifLet` child that is `nil`, a
    /// `forEach` element that was removed), and was ignored.
    case missingChild
    /// A dependency without a test value was used in a test.
    case unimplementedDependency
    /// An effect poured an action after its operation had returned, through a ``Pour`` that
    /// escaped it. The action is still reduced.
    case pourFromEndedEffect
    /// `dismiss()` was called from a feature that is not presented (see ``DismissEffect``), or an
    /// action arrived for a stack element that was popped: nothing was done.
    case notPresented
    /// Anything else a dripper or a library reports.
    case other
  }

  /// What went wrong.
  public let kind: Kind
  /// A one-line explanation for people.
  public let message: String
  /// The error, for ``Kind/uncaughtError``.
  public let error: (any Error)?

  /// Creates a diagnostic.
  public init(_ kind: Kind, _ message: String, error: (any Error)? = nil) {
    self.kind = kind
    self.message = message
    self.error = error
  }

  /// `"dripper: "` followed by the message.
  public var description: String { "dripper: \(message)" }
}

extension Diagnostic {
  /// An action for a child in an enum case arrived while the state was in another case.
  @usableFromInline
  static func missingCase<State>(of state: State.Type, for action: Any) -> Diagnostic {
    Diagnostic(
      .missingChild,
      "ignored \(Dump.line(action)): it is for a child in a case of \(State.self) that the state is not in "
        + "(an effect may have outlived its case)")
  }
}

/// A value as a diagnostic shows it: as a `TestStation` failure does (`.row(id: 2, .toggle)`),
/// never as raw reflection. Not inlinable, so that inlinable reducers can call it.
@usableFromInline
func tidyDescription(of value: Any) -> String {
  Dump.line(value)
}
