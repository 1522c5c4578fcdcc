import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@CasePathable`: an enum's `AllCasePaths` table, one property a case, and its conformance.
public enum CasePathableMacro {}

extension CasePathableMacro: MemberMacro {
  /// The table is written one line a case, as a person would write it; the compiler's formatting
  /// would spread each closure over five.
  public static var formatMode: FormatMode { .disabled }

  /// The table, `allCasePaths`, and a `BindableAction`'s `binding`; nothing, with a diagnostic,
  /// for anything but an enum or for an enum with two cases of one name.
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let enumDecl = declaration.as(EnumDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(node: node, message: MacroDiagnostic.notAnEnum(kind(of: declaration))))
      return []
    }
    let table = Table(
      enumName: enumDecl.name.trimmedDescription, access: accessModifier(of: enumDecl.modifiers))
    var cases = CaseNames()
    let properties = table.properties(of: enumDecl.memberBlock.members, cases: &cases, in: context)
    guard !cases.hasOverload else { return [] }

    var members: [DeclSyntax] = [
      properties.isEmpty
        ? "\(raw: table.access)struct AllCasePaths: Sendable {}"
        : """
        \(raw: table.access)struct AllCasePaths: Sendable {
        \(raw: properties)
        }
        """,
      "\(raw: table.access)static var allCasePaths: AllCasePaths { AllCasePaths() }",
    ]
    if let binding = table.bindingProperty(of: enumDecl, cases: cases) { members.append(binding) }
    return members
  }

  /// What the attribute is attached to, for the diagnostic: "struct type 'Foo'".
  private static func kind(of declaration: some DeclGroupSyntax) -> String {
    switch declaration.kind {
    case .structDecl: "struct type '\(declaration.as(StructDeclSyntax.self)!.name.text)'"
    case .classDecl: "class type '\(declaration.as(ClassDeclSyntax.self)!.name.text)'"
    case .actorDecl: "actor type '\(declaration.as(ActorDeclSyntax.self)!.name.text)'"
    case .protocolDecl: "protocol '\(declaration.as(ProtocolDeclSyntax.self)!.name.text)'"
    default: "an extension"
    }
  }
}

extension CasePathableMacro: ExtensionMacro {
  /// `extension Enum: CasePathable {}`, unless the enum declares the conformance.
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    // The compiler leaves out a conformance the enum already declares.
    guard declaration.is(EnumDeclSyntax.self), !protocols.isEmpty else { return [] }
    return [try ExtensionDeclSyntax("extension \(type.trimmed): CasePathable {}")]
  }
}

/// The case names seen, to refuse an overloaded one: `case bar(Int)` beside `case bar(int: Int)`
/// would need two properties of one name.
struct CaseNames {
  private(set) var payloads: [String: [EnumCaseParameterSyntax]] = [:]
  private(set) var hasOverload = false

  mutating func insert(_ element: EnumCaseElementSyntax, in context: some MacroExpansionContext) -> Bool {
    let name = element.name.text
    guard payloads[name] == nil else {
      hasOverload = true
      context.diagnose(Diagnostic(node: element.name, message: MacroDiagnostic.overloaded(name)))
      return false
    }
    payloads[name] = Array(element.parameterClause?.parameters ?? [])
    return true
  }
}

/// The text of one enum's table.
struct Table {
  let enumName: String
  let access: String

  /// One property a case, with each `#if` around its cases kept.
  func properties(
    of members: MemberBlockItemListSyntax, cases: inout CaseNames, in context: some MacroExpansionContext
  ) -> String {
    var lines: [String] = []
    for member in members {
      if let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) {
        let attributes = caseDecl.attributes.trimmedDescription
        for element in caseDecl.elements where cases.insert(element, in: context) {
          if !attributes.isEmpty { lines.append("  \(attributes)") }
          lines.append(property(of: element))
        }
      } else if let ifConfig = member.decl.as(IfConfigDeclSyntax.self) {
        for clause in ifConfig.clauses {
          let condition = clause.condition.map { " \($0.trimmedDescription)" } ?? ""
          lines.append("  \(clause.poundKeyword.text)\(condition)")
          if case .decls(let nested)? = clause.elements {
            lines.append(properties(of: nested, cases: &cases, in: context))
          }
        }
        lines.append("  #endif")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `var name: CasePath<Enum, Value> { CasePath({ embed }, extract: { match }) }`.
  private func property(of element: EnumCaseElementSyntax) -> String {
    let name = element.name.text
    let parameters = Array(element.parameterClause?.parameters ?? [])
    let value: String
    let embed: String
    let extract: String
    switch parameters.count {
    case 0:
      value = "Void"
      embed = "{ \(enumName).\(name) }"
      extract = "{ if case .\(name) = $0 { () } else { nil } }"
    case 1:
      value = type(of: parameters[0])
      embed = "{ \(enumName).\(name)(\(label(of: parameters[0]))$0) }"
      extract = "{ if case .\(name)(let v0) = $0 { v0 } else { nil } }"
    default:
      let indices = parameters.indices
      value =
        "("
        + indices.map { label(of: parameters[$0]) + type(of: parameters[$0]) }.joined(separator: ", ")
        + ")"
      let arguments = indices.map { "\(label(of: parameters[$0]))$0.\($0)" }.joined(separator: ", ")
      embed = "{ \(enumName).\(name)(\(arguments)) }"
      let bindings = indices.map { "let v\($0)" }.joined(separator: ", ")
      let values = indices.map { "v\($0)" }.joined(separator: ", ")
      extract = "{ if case .\(name)(\(bindings)) = $0 { (\(values)) } else { nil } }"
    }
    return """
        \(access)var \(name): CasePath<\(enumName), \(value)> {
          CasePath(\(embed), extract: \(extract))
        }
      """
  }

  /// A `BindableAction`'s `binding` property, when the enum says it is one, has a `binding` case
  /// with one value and declares no `binding` of its own.
  func bindingProperty(of enumDecl: EnumDeclSyntax, cases: CaseNames) -> DeclSyntax? {
    let inherited = enumDecl.inheritanceClause?.inheritedTypes.map(\.type.trimmedDescription) ?? []
    guard inherited.contains(where: { $0 == "BindableAction" || $0.hasSuffix(".BindableAction") }),
      let payload = cases.payloads["binding"], payload.count == 1
    else { return nil }
    let declaresBinding = enumDecl.memberBlock.members.contains { member in
      member.decl.as(VariableDeclSyntax.self)?.bindings.contains {
        $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "binding"
      } ?? false
    }
    guard !declaresBinding else { return nil }
    let match =
      cases.payloads.count == 1
      ? "if case .binding(let action) = self { action } else { nil }"
      : "switch self { case .binding(let action): action; default: nil }"
    return "\(raw: access)var binding: \(raw: type(of: payload[0]))? { \(raw: match) }"
  }

  /// A value's type as the table sees it: `Self` is the enum, not the table.
  private func type(of parameter: EnumCaseParameterSyntax) -> String {
    SelfRewriter(enumName: enumName).rewrite(parameter.type).trimmedDescription
  }

  /// The argument label a case's value is passed with, and its label in the payload's tuple:
  /// `buzzier: `, or none for `_` and unlabelled values.
  private func label(of parameter: EnumCaseParameterSyntax) -> String {
    guard let first = parameter.firstName, first.tokenKind != .wildcard else { return "" }
    return "\(first.text): "
  }
}

/// Rewrites `Self` in a type to the enum's name.
private final class SelfRewriter: SyntaxRewriter {
  let enumName: String

  init(enumName: String) {
    self.enumName = enumName
    super.init()
  }

  override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
    guard node.name.tokenKind == .keyword(.Self) else { return super.visit(node) }
    return TypeSyntax(node.with(\.name, .identifier(enumName, trailingTrivia: node.name.trailingTrivia)))
  }
}
