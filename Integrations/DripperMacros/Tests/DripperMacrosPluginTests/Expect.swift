import DripperMacrosPlugin
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Checks what a macro writes for `source`, and what it refuses. The conformances are those the
/// compiler would ask for: `[]` when the type already declares them. Only `macro` is expanded, so
/// that the attributes it writes (`@CasePathable`) show as written.
func expect(
  _ source: String, expands expected: String, diagnostics: [DiagnosticSpec] = [],
  macro: String = "CasePathable", conformances: [String] = ["CasePathable"],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  assertMacroExpansion(
    source, expandedSource: expected, diagnostics: diagnostics,
    macroSpecs: [
      macro: MacroSpec(
        type: ["Dripper": DripperMacro.self, "DependencyClient": DependencyClientMacro.self][macro]
          ?? CasePathableMacro.self,
        conformances: conformances.map { "\(raw: $0)" })
    ],
    indentationWidth: .spaces(2),
    failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
}
