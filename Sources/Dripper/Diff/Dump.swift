/// Renders any value as readable, nested text: the input of the diff engine.
///
/// ```
/// Todos.State(
///   filter: .active
///   rows: [
///     [0]: Row.State(id: 1, title: "Milk", isDone: false)
///   ]
/// )
/// ```
///
/// Structs, classes and tuples show their fields, enums their case and payload, collections their
/// elements; a value whose text fits on a line is kept on one. Sets and dictionaries are sorted, so
/// that equal values always render the same.
/// A value whose description is what test failures and logs show of it, rather than its fields
/// (a ``Commit``, whose field is a closure).
package protocol DumpsAsDescription: CustomStringConvertible {}

package enum Dump {
  /// The value's text, as lines.
  package static func lines(_ value: Any) -> [String] {
    var visited: Set<ObjectIdentifier> = []
    var lines: [String] = []
    node(value, depth: 0, visited: &visited).render(into: &lines, indent: "", prefix: "")
    return lines
  }

  /// The value's text on one line, shortened with an ellipsis past `limit` characters.
  package static func line(_ value: Any, limit: Int = 160) -> String {
    var visited: Set<ObjectIdentifier> = []
    let text = node(value, depth: 0, visited: &visited).inline
    return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
  }

  private static let maximumDepth = 24
  private static let inlineWidth = 72

  private indirect enum Node {
    case leaf(String)
    case block(open: String, children: [(label: String?, node: Node)], close: String)

    var inline: String {
      switch self {
      case .leaf(let text): text
      case .block(let open, let children, let close):
        open + children.map { ($0.label.map { "\($0): " } ?? "") + $0.node.inline }.joined(separator: ", ")
          + close
      }
    }

    var fitsOnALine: Bool {
      switch self {
      case .leaf(let text): !text.contains("\n")
      case .block(_, let children, _):
        children.allSatisfy { if case .leaf = $0.node { true } else { false } }
          && inline.count <= Dump.inlineWidth
      }
    }

    func render(into lines: inout [String], indent: String, prefix: String) {
      switch self {
      case .leaf(let text):
        lines.append(indent + prefix + text)
      case .block(let open, let children, let close):
        if fitsOnALine || children.isEmpty {
          lines.append(indent + prefix + inline)
          return
        }
        lines.append(indent + prefix + open)
        for child in children {
          child.node.render(into: &lines, indent: indent + "  ", prefix: child.label.map { "\($0): " } ?? "")
        }
        lines.append(indent + close)
      }
    }
  }

  private static func node(_ value: Any, depth: Int, visited: inout Set<ObjectIdentifier>) -> Node {
    guard depth < maximumDepth else { return .leaf("…") }
    switch value {
    case let text as String: return .leaf(quoted(text))
    case let text as Substring: return .leaf(quoted(String(text)))
    case let character as Character: return .leaf(quoted(String(character)))
    case is any Numeric, is Bool, is Duration: return .leaf(String(describing: value))
    case let described as any DumpsAsDescription: return .leaf(described.description)
    default: break
    }
    if let text = foundationText(value) { return .leaf(text) }
    let mirror = Mirror(reflecting: value)
    let typeName = name(of: type(of: value))
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return .leaf("nil") }
      return node(wrapped, depth: depth, visited: &visited)
    case .enum:
      guard let payload = mirror.children.first else { return .leaf(".\(value)") }
      let caseName = payload.label ?? "\(value)"
      let payloadMirror = Mirror(reflecting: payload.value)
      let fields: [(String?, Node)] =
        payloadMirror.displayStyle == .tuple
        ? payloadMirror.children.map {
          // An unlabeled associated value reads as TCA's dumps print it: `.loaded(url, data)`.
          let named = $0.label.flatMap { $0.hasPrefix(".") ? nil : $0 }
          return (label(of: named), node($0.value, depth: depth + 1, visited: &visited))
        }
        : [(nil, node(payload.value, depth: depth + 1, visited: &visited))]
      return .block(open: ".\(caseName)(", children: fields, close: ")")
    case .collection:
      let children = mirror.children.enumerated().map { index, child in
        (Optional("[\(index)]"), node(child.value, depth: depth + 1, visited: &visited))
      }
      return .block(open: "[", children: children, close: "]")
    case .set:
      let children = mirror.children.map { node($0.value, depth: depth + 1, visited: &visited) }
        .sorted { $0.inline < $1.inline }.map { (String?.none, $0) }
      return .block(open: "Set([", children: children, close: "])")
    case .dictionary:
      // A dictionary's children are (key, value) pairs, sorted so that equal dictionaries render
      // alike. A custom mirror in this style (a `StackState`) labels its children with their keys
      // instead, in an order of its own, or may hold anything at all.
      var pairs = mirror.children.enumerated().map { index, child -> (String, Node) in
        if let label = child.label { return (label, node(child.value, depth: depth + 1, visited: &visited)) }
        let pair = Array(Mirror(reflecting: child.value).children)
        guard pair.count == 2 else {
          return ("[\(index)]", node(child.value, depth: depth + 1, visited: &visited))
        }
        let key = node(pair[0].value, depth: depth + 1, visited: &visited).inline
        return (key, node(pair[1].value, depth: depth + 1, visited: &visited))
      }
      if !mirror.children.contains(where: { $0.label != nil }) { pairs.sort { $0.0 < $1.0 } }
      return .block(open: "[", children: pairs.map { (Optional($0.0), $0.1) }, close: "]")
    case .tuple:
      let children = mirror.children.map {
        (label(of: $0.label), node($0.value, depth: depth + 1, visited: &visited))
      }
      return .block(open: "(", children: children, close: ")")
    case .class where hidesItsStorage(value, mirror: mirror),
      .struct where hidesItsStorage(value, mirror: mirror):
      // A system type whose fields are its private storage (`_guts`, `_storage`): its text.
      return .leaf("\(typeName)(\(String(describing: value)))")
    case .class:
      let identity = ObjectIdentifier(value as AnyObject)
      guard visited.insert(identity).inserted else { return .leaf("\(typeName)(↩︎)") }
      defer { visited.remove(identity) }
      return fields(of: mirror, typeName: typeName, value: value, depth: depth, visited: &visited)
    case .struct:
      return fields(of: mirror, typeName: typeName, value: value, depth: depth, visited: &visited)
    default:
      return .leaf(String(describing: value))
    }
  }

  /// Whether a value is of a system module's type whose every field is private, with a
  /// description of its own: what it prints is what it is, its fields are not.
  private static func hidesItsStorage(_ value: Any, mirror: Mirror) -> Bool {
    guard value is any CustomStringConvertible, !mirror.children.isEmpty,
      mirror.children.allSatisfy({ $0.label?.hasPrefix("_") ?? true })
    else { return false }
    let module = String(reflecting: type(of: value)).prefix { $0 != "." }
    return systemModules.contains(String(module))
  }

  private static let systemModules: Set<String> = [
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "_Concurrency",
    "Synchronization", "Dispatch", "Distributed",
  ]

  private static func fields(
    of mirror: Mirror, typeName: String, value: Any, depth: Int, visited: inout Set<ObjectIdentifier>
  ) -> Node {
    if mirror.children.isEmpty {
      // A type that hides its storage (a Duration) prints itself.
      let described = String(describing: value)
      return .leaf(described.hasPrefix(typeName) || described.isEmpty ? "\(typeName)()" : described)
    }
    let children = mirror.children.map {
      (label(of: $0.label), node($0.value, depth: depth + 1, visited: &visited))
    }
    return .block(open: "\(typeName)(", children: children, close: ")")
  }

  /// Drops the underscore of stored properties behind property wrappers and private storage.
  private static func label(of label: String?) -> String? {
    guard let label else { return nil }
    return label.hasPrefix("_") ? String(label.dropFirst()) : label
  }

  /// The type's name without its module: `Todos.State`, not `TodosREPL.Todos.State`.
  /// A private type's context (`(unknown context at $1234).`) is left out: it names an address.
  package static func name(of type: Any.Type) -> String {
    let full = withoutPrivateContexts(String(reflecting: type))
    guard let dot = full.firstIndex(of: "."), !full.hasPrefix("Swift.") else {
      return full.hasPrefix("Swift.") ? String(full.dropFirst(6)) : full
    }
    return String(full[full.index(after: dot)...])
  }

  private static func withoutPrivateContexts(_ name: String) -> String {
    let marker = "(unknown context at $"
    var result = ""
    var rest = Substring(name)
    while let start = rest.firstRange(of: marker) {
      result += rest[..<start.lowerBound]
      guard let close = rest[start.upperBound...].firstIndex(of: ")") else { return result + rest }
      rest = rest[rest.index(after: close)...]
      if rest.first == "." { rest = rest.dropFirst() }
    }
    return result + rest
  }

  private static func quoted(_ text: String) -> String {
    var result = "\""
    for character in text {
      switch character {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      default: result.append(character)
      }
    }
    return result + "\""
  }
}
