import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct DripperMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    CasePathableMacro.self, DripperMacro.self, DependencyClientMacro.self,
  ]
}
