import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@DependencyClient`: an initializer whose every endpoint is unimplemented unless given, and a
/// method with labels for each endpoint whose closure names its parameters.
public enum DependencyClientMacro {}

extension DependencyClientMacro: MemberMacro {
  /// The initializer and the labelled methods; nothing, with a diagnostic, for anything but a
  /// struct or for an endpoint the macro cannot make unimplemented.
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      context.diagnose(Diagnostic(node: node, message: MacroDiagnostic.notAStruct))
      return []
    }
    let client = structDecl.name.text
    let access = accessModifier(of: structDecl.modifiers)
    let properties = structDecl.memberBlock.members.compactMap { Property($0.decl, client: client) }
    var parameters: [String] = []
    var assignments: [String] = []
    var methods: [DeclSyntax] = []
    for property in properties {
      guard let parameter = property.parameter(in: context) else { return [] }
      parameters.append(parameter)
      assignments.append("  self.\(property.name) = \(property.name)")
      if let method = property.labelledMethod(access: accessModifier(of: property.modifiers)) {
        methods.append(method)
      }
    }
    let initializer: DeclSyntax = """
      \(raw: access)init(
      \(raw: parameters.map { "  \($0)" }.joined(separator: ",\n"))
      ) {
      \(raw: assignments.joined(separator: "\n"))
      }
      """
    return [initializer] + methods
  }
}

/// A stored property of the client that its initializer sets: an endpoint when its type is a
/// closure.
struct Property {
  let name: String
  let type: TypeSyntax
  let initializer: ExprSyntax?
  let modifiers: DeclModifierListSyntax
  let client: String
  let binding: PatternBindingSyntax

  init?(_ decl: DeclSyntax, client: String) {
    // A `let` with a value is set once and for all; every other stored property is the
    // initializer's to set.
    guard let variable = decl.as(VariableDeclSyntax.self),
      !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }),
      variable.bindings.count == 1, let binding = variable.bindings.first, binding.accessorBlock == nil,
      variable.bindingSpecifier.tokenKind == .keyword(.var) || binding.initializer == nil,
      let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
      let type = binding.typeAnnotation?.type
    else { return nil }
    self.name = name
    self.type = type
    self.initializer = binding.initializer?.value
    self.modifiers = variable.modifiers
    self.client = client
    self.binding = binding
  }

  /// The closure type, under its attributes (`@Sendable`), when the property is an endpoint.
  var function: FunctionTypeSyntax? {
    type.as(FunctionTypeSyntax.self)
      ?? type.as(AttributedTypeSyntax.self)?.baseType.as(FunctionTypeSyntax.self)
  }

  /// Whether the endpoint is `async`, and whether it throws.
  var isAsync: Bool { function?.effectSpecifiers?.asyncSpecifier != nil }
  var isThrowing: Bool { function?.effectSpecifiers?.throwsClause != nil }

  /// The initializer's parameter: the property, `@escaping` when a closure, defaulting to an
  /// unimplemented endpoint (or to the property's own value).
  func parameter(in context: some MacroExpansionContext) -> String? {
    guard let function else {
      return "\(name): \(type.trimmedDescription)" + (initializer.map { " = \($0.trimmedDescription)" } ?? "")
    }
    let description = "\"\(client).\(name)\""
    let returnType = function.returnClause.type.trimmedDescription
    let returnsVoid = ["Void", "()", "Swift.Void"].contains(returnType)
    let value: String
    if let initializer {
      value = "unimplemented(\(description), default: \(initializer.trimmedDescription))"
    } else if isAsync && isThrowing {
      value = "unimplemented(\(description))"
    } else if returnsVoid {
      value = "unimplemented(\(description), placeholder: ())"
    } else {
      context.diagnose(Diagnostic(node: binding, message: MacroDiagnostic.needsADefault(name, returnType)))
      return nil
    }
    return "\(name): @escaping \(type.trimmedDescription) = \(value)"
  }

  /// `func search(query: String, limit: Int) async throws -> [String]`, when the closure names
  /// its parameters (`(_ query: String, _ limit: Int)`).
  func labelledMethod(access: String) -> DeclSyntax? {
    guard let function else { return nil }
    let elements = Array(function.parameters)
    let labels = elements.map { ($0.secondName ?? $0.firstName).map(\.text).flatMap { $0 == "_" ? nil : $0 } }
    guard !elements.isEmpty, labels.allSatisfy({ $0 != nil }) else { return nil }
    let names = labels.map { $0! }
    let parameters = zip(names, elements).map { "\($0): \($1.type.trimmedDescription)" }
    let effects =
      (isAsync ? " async" : "")
      + (function.effectSpecifiers?.throwsClause.map { " \($0.trimmedDescription)" } ?? "")
    let call =
      (isThrowing ? "try " : "") + (isAsync ? "await " : "") + "\(name)(\(names.joined(separator: ", ")))"
    return """
      \(raw: access)func \(raw: name)(\(raw: parameters.joined(separator: ", ")))\(raw: effects) -> \(raw: function.returnClause.type.trimmedDescription) {
        \(raw: call)
      }
      """
  }
}
