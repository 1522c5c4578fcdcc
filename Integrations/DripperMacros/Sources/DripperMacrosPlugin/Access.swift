import SwiftSyntax

/// The access a declaration states, when what a macro writes for it must be as visible:
/// `public ` or `package `. Otherwise none, and what is written is as visible as the declaration
/// it is nested in.
func accessModifier(of modifiers: DeclModifierListSyntax) -> String {
  for modifier in modifiers {
    switch modifier.name.tokenKind {
    case .keyword(.public), .keyword(.open): return "public "
    case .keyword(.package): return "package "
    default: continue
    }
  }
  return ""
}
