/// The ids a collection of children removes between two looks by the dripper that runs them: how
/// `forEach` over an ``IdentifiedArray`` and over a ``StackState`` learn which children left, at a
/// cost that grows with the children removed, not with the collection.
///
/// It lives in the collection, so that it sees every removal, whoever makes it: the dripper's own
/// parent, or a reducer around the dripper, whose removals the Station's check after the whole
/// reduction reads (see ``_Audit``). `nil` until the dripper first looks, and in a collection the
/// dripper has not seen (a new value assigned whole): its history is unknown, so the dripper asks the
/// Station's effects which children are gone instead.
@usableFromInline
struct RemovalLog<ID: Hashable & Sendable>: Sendable {
  @usableFromInline var removed: [ID]?

  @inlinable
  init() { removed = nil }

  /// The ids removed since the last look, or `nil` if the history is unknown; logging goes on
  /// afresh.
  @inlinable
  mutating func restart() -> [ID]? {
    defer { removed = [] }
    return removed
  }

  /// Logs `id`, if logging.
  @inlinable
  mutating func record(_ id: ID) { removed?.append(id) }

  /// Logs `ids`, if logging.
  @inlinable
  mutating func record(contentsOf ids: some Sequence<ID>) { removed?.append(contentsOf: ids) }
}

/// What a collection of children tells the dripper that runs them, to cancel the effects of those
/// that left: a ``RemovalLog`` and a test of presence.
@usableFromInline
protocol ChildCollection<ChildID> {
  associatedtype ChildID: Hashable & Sendable
  var _removals: RemovalLog<ChildID> { get set }
  /// Whether a child with `id` is present.
  func containsChild(_ id: ChildID) -> Bool
  /// Whether a child with the id `id` names is present, for the Station's effects to ask; it
  /// holds the collection's index, not a copy of the collection.
  var presence: @Sendable (AnySendableHashable) -> Bool { get }
  /// Whether the children of a collection the dripper has not seen (assigned whole) are all new,
  /// whatever their ids: a stack's ids name its screens, which a new stack never continues. A list's
  /// ids are its rows' own, so a row of a new list with an old id is the old row.
  static var newCollectionHasNewChildren: Bool { get }
}

extension ChildCollection {
  /// What cancels the effects of the children that left since the last look, if any; logging goes
  /// on afresh. Most reductions remove nothing, and cost a look at the log.
  @inlinable
  mutating func cancellingRemoved<Action>(at location: any AnyKeyPath & Sendable) -> Effect<Action> {
    let removed = _removals.restart()
    if let removed, removed.isEmpty { return .none }
    return cancelling(removed, at: location)
  }

  /// What cancels the effects of the children in `removed` that are not present: one merge of
  /// their namespaces (a child removed and added back with its id keeps its effects); or, when the
  /// history is unknown (`nil`), a cancellation of every child's effects at `location` whose id is
  /// not present, which costs what the Station's live effects do, not what the collection holds
  /// (of every child, for a collection whose new children are all new: see
  /// ``newCollectionHasNewChildren``).
  @usableFromInline
  func cancelling<Action>(_ removed: [ChildID]?, at location: any AnyKeyPath & Sendable) -> Effect<Action> {
    guard let removed else {
      if Self.newCollectionHasNewChildren { return .cancelChildren(at: .keyPath(location)) { _ in false } }
      return .cancelChildren(at: .keyPath(location), keeping: presence)
    }
    return .merge(
      removed.lazy.filter { !containsChild($0) }.map {
        .cancelNamespace(ChildNamespace.element($0, at: location))
      })
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
