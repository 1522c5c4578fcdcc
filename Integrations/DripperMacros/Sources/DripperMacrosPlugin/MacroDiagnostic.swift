import SwiftDiagnostics

/// What the macros refuse, in one line each.
struct MacroDiagnostic: DiagnosticMessage {
  let message: String
  let diagnosticID: MessageID
  var severity: DiagnosticSeverity { .error }

  private init(_ id: String, _ message: String) {
    self.message = message
    self.diagnosticID = MessageID(domain: "DripperMacros", id: id)
  }

  /// `@CasePathable` on something else than an enum: `subject` is "struct type 'Foo'".
  static func notAnEnum(_ subject: String) -> Self {
    Self("notAnEnum", "'@CasePathable' applies to an enum, not to \(subject)")
  }

  /// `@CasePathable` on an enum with two cases named `name`.
  static func overloaded(_ name: String) -> Self {
    Self(
      "overloaded", "'@CasePathable' cannot name two cases '\(name)': a table has one path a name; rename one"
    )
  }

  /// `@Dripper` on something else than a struct or an enum.
  static let notAStructOrEnum = Self(
    "notAStructOrEnum", "'@Dripper' applies to a feature struct or to an enum of features")

  /// `@Dripper` on an enum whose case `name` does not hold one feature.
  static func notOneFeature(_ name: String) -> Self {
    Self(
      "notOneFeature",
      "'@Dripper' enum case '\(name)' must hold one feature, unlabelled: case \(name)(Feature)")
  }

  /// `@DependencyClient` on something else than a struct.
  static let notAStruct = Self("notAStruct", "'@DependencyClient' applies to a struct of endpoints")

  /// `@DependencyClient` on an endpoint that returns a value without throwing, and has no default.
  static func needsADefault(_ name: String, _ returnType: String) -> Self {
    Self(
      "needsADefault",
      "'@DependencyClient' endpoint '\(name)' returns \(returnType) without throwing: give it a default to answer with"
    )
  }
}
