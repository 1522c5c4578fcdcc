extension CasePath {
  /// A case path from the case alone, its extraction found by reflection: one line a case.
  ///
  /// ```swift
  /// extension CasePath<AppFeature.Action, Counter.Action> {
  ///   static var counter: Self { Self(AppFeature.Action.counter) }
  /// }
  /// ```
  ///
  /// The case is told apart from others with the same payload type by its name, found the first
  /// time a value in it is extracted: `Mirror` names the case a value is in, and embedding the
  /// payload back must land in the same case. An extraction reads a `Mirror` of the value, about
  /// 1.7 µs (`dripper-bench --filter composition`: some 1,300 times a pattern match); on a path
  /// that reduces many actions a second, write the pattern match with ``init(_:extract:)``, which
  /// costs a function call. A case without a payload takes
  /// `CasePath<Root, Void>`.
  public init(_ embed: @escaping @Sendable (Value) -> Root) {
    let name = CaseName()
    self.init(embed) { root in
      let mirror = Mirror(reflecting: root)
      guard mirror.displayStyle == .enum else { return nil }
      if Value.self == Void.self {
        guard mirror.children.isEmpty, let nothing = () as? Value else { return nil }
        return "\(root)" == "\(embed(nothing))" ? nothing : nil
      }
      guard let child = mirror.children.first, let label = child.label else { return nil }
      let known = name.value
      // Another case, once the case is known: no cast of its payload.
      if let known, known != label { return nil }
      guard let value = child.value as? Value ?? Self.labeledPayload(child.value) else { return nil }
      if known != nil { return value }
      guard Mirror(reflecting: embed(value)).children.first?.label == label else { return nil }
      name.value = label
      return value
    }
  }
}

extension CasePath {
  /// The payload of a case with one labeled value (`case game(players: [String])`), which a
  /// `Mirror` shows as a tuple of one labeled element.
  fileprivate static func labeledPayload(_ payload: Any) -> Value? {
    let mirror = Mirror(reflecting: payload)
    guard mirror.displayStyle == .tuple, mirror.children.count == 1 else { return nil }
    return mirror.children.first?.value as? Value
  }
}

/// The name of the case a reflected case path stands for, once it is known.
private final class CaseName: Sendable {
  private let storage = Lock<String?>(nil)

  var value: String? {
    get { storage.withLock { $0 } }
    set { storage.withLock { $0 = newValue } }
  }
}
