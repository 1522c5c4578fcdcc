/// The ids a collection of children removes while a dripper watches it: how `forEach` over an
/// ``IdentifiedArray`` and over a ``StackState`` learn which children left in their parent's
/// reduction, at a cost that grows with the children removed, not with the collection.
///
/// `nil` while nobody watches, so that a collection nobody watches keeps no log; and `nil` again
/// when the dripper reads it if the parent replaced the whole collection, whose new value logged
/// nothing.
@usableFromInline
struct RemovalLog<ID: Hashable & Sendable>: Sendable {
  @usableFromInline var removed: [ID]?

  @inlinable
  init() { removed = nil }

  /// Starts logging.
  @inlinable
  mutating func begin() { removed = [] }

  /// Stops logging, returning the ids removed since ``begin()``; `nil` if the collection was
  /// replaced meanwhile.
  @inlinable
  mutating func end() -> [ID]? {
    defer { removed = nil }
    return removed
  }

  /// Logs `id`, if logging.
  @inlinable
  mutating func record(_ id: ID) { removed?.append(id) }

  /// Logs `ids`, if logging.
  @inlinable
  mutating func record(contentsOf ids: some Sequence<ID>) { removed?.append(contentsOf: ids) }
}

extension Effect {
  /// What cancels the effects of the children that left the collection at `location` during a
  /// reduction, given its ``RemovalLog``: one merge of their namespaces (a child removed and added
  /// back with its id keeps its effects); or, when the collection was replaced wholesale and
  /// logged nothing, a cancellation of every child's effects whose id is not among `present`,
  /// which costs what the Station's live effects do.
  @inlinable
  static func cancellingRemovedChildren<ID: Hashable & Sendable>(
    _ removed: [ID]?, at location: any AnyKeyPath & Sendable, isPresent: (ID) -> Bool, present: () -> [ID]
  ) -> Self {
    guard let removed else {
      return .cancelChildren(
        at: .keyPath(location), except: Set(present().lazy.map { AnySendableHashable($0) }))
    }
    // Most reductions remove nothing: return before the merge, which is not specialized here.
    if removed.isEmpty { return .none }
    var cancellations: [Self] = []
    for id in removed where !isPresent(id) {
      cancellations.append(.cancelNamespace(ChildNamespace.element(id, at: location)))
    }
    return .merge(cancellations)
  }
}

extension ChildNamespace {
  /// The namespace of the element `id` of the collection at `location`.
  @inlinable
  static func element(_ id: some Hashable & Sendable, at location: any AnyKeyPath & Sendable)
    -> AnySendableHashable
  {
    AnySendableHashable(ChildNamespace(location, id: AnySendableHashable(id)))
  }
}
