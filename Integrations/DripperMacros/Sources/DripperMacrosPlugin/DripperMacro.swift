import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Dripper`: TCA's `@Reducer`. On a struct, `@CasePathable` on its `State` and `Action` enums and
/// the conformance to `Dripper`; on an enum of features, its `State`, `Action` and `body`, and the
/// conformance to `CaseDripper`.
public enum DripperMacro {}

extension DripperMacro: MemberMacro {
  /// An enum of features' `State`, `Action` and static `body`; nothing for a struct.
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if declaration.is(StructDeclSyntax.self) { return [] }
    guard let enumDecl = declaration.as(EnumDeclSyntax.self) else {
      context.diagnose(Diagnostic(node: node, message: MacroDiagnostic.notAStructOrEnum))
      return []
    }
    var features: [Feature] = []
    for member in enumDecl.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        guard let feature = Feature(element) else {
          context.diagnose(
            Diagnostic(node: element, message: MacroDiagnostic.notOneFeature(element.name.text)))
          return []
        }
        features.append(feature)
      }
    }
    let access = accessModifier(of: enumDecl.modifiers)
    let name = enumDecl.name.text
    let scopes = features.compactMap(\.scope)
    return [
      """
      @CasePathable @dynamicMemberLookup
      \(raw: access)enum State: CaseDripperState {
        \(raw: access)typealias Features = \(raw: name)
      \(raw: features.map { "  case \($0.name)(\($0.state))" }.joined(separator: "\n"))
      }
      """,
      """
      @CasePathable
      \(raw: access)enum Action: Sendable {
      \(raw: features.map { "  case \($0.name)(\($0.action))" }.joined(separator: "\n"))
      }
      """,
      """
      @DripperBuilder<State, Action>
      \(raw: access)static var body: some Dripper<State, Action> {
      \(raw: scopes.isEmpty ? "  EmptyDripper<State, Action>()" : scopes.map { "  \($0)" }.joined(separator: "\n"))
      }
      """,
    ]
  }
}

extension DripperMacro: MemberAttributeMacro {
  /// `@CasePathable` on a feature struct's `State` and `Action` enums, and `@DripperBuilder` on
  /// its `body`, unless they have them. A conformance stated in an extension lends its
  /// requirement's result builder to no witness declared elsewhere, so `body` is given it here.
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    guard declaration.is(StructDeclSyntax.self) else { return [] }
    if let nested = member.as(EnumDeclSyntax.self), ["State", "Action"].contains(nested.name.text),
      !nested.attributes.has(named: "CasePathable")
    {
      return ["@CasePathable"]
    }
    if let variable = member.as(VariableDeclSyntax.self),
      variable.bindings.contains(where: { $0.pattern.trimmedDescription == "body" }),
      !variable.attributes.has(named: "DripperBuilder")
    {
      return ["@DripperBuilder<Self.State, Self.Action>"]
    }
    return []
  }
}

extension DripperMacro: ExtensionMacro {
  /// `extension Feature: Dripper {}` for a struct, `extension Destination: CaseDripper {}` for an
  /// enum, unless it declares the conformance.
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    let conformance: String
    if declaration.is(StructDeclSyntax.self) {
      conformance = "Dripper"
    } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      // A refused case is reported once, by the member role; a conformance without its members
      // would add a second error.
      let elements = enumDecl.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }
        .flatMap(\.elements)
      guard elements.allSatisfy({ Feature($0) != nil }) else { return [] }
      conformance = "CaseDripper"
    } else {
      return []
    }
    guard protocols.contains(where: { $0.trimmedDescription.hasSuffix(conformance) }) else { return [] }
    return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: conformance) {}")]
  }
}

extension AttributeListSyntax {
  /// Whether an attribute of this name is there, module-qualified or not.
  fileprivate func has(named name: String) -> Bool {
    contains {
      guard let attribute = $0.as(AttributeSyntax.self) else { return false }
      let written = attribute.attributeName.trimmedDescription
      return written == name || written.hasSuffix(".\(name)") || written.hasPrefix("\(name)<")
    }
  }
}

/// One case of an enum of features: a feature (`case login(Login)`), or a state that has no
/// logic of its own (`case alert(AlertState<Alert>)`), as TCA's `@Reducer enum` takes.
struct Feature {
  let name: String
  let state: String
  let action: String
  let scope: String?

  init?(_ element: EnumCaseElementSyntax) {
    guard let parameters = element.parameterClause?.parameters, parameters.count == 1,
      let parameter = parameters.first, parameter.firstName == nil
    else { return nil }
    name = element.name.text
    let type = parameter.type.trimmedDescription
    if let generic = parameter.type.as(IdentifierTypeSyntax.self),
      ["AlertState", "ConfirmationDialogState"].contains(generic.name.text),
      let argument = generic.genericArgumentClause?.arguments.first
    {
      state = type
      action = argument.trimmedDescription
      scope = nil
    } else {
      state = "\(type).State"
      action = "\(type).Action"
      scope = "Scope(state: \\.\(name), action: \\.\(name)) { \(type)() }"
    }
  }
}
