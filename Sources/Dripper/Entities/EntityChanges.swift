/// The ids of the entities one reduction inserted, updated and removed in an ``EntityTable``.
///
/// ```swift
/// for await changes in station.observe(\.todos.changes) {
///   for id in changes.updated { redraw(id) }
/// }
/// ```
///
/// An id is in at most one set, by what the reduction did to it in all: inserted then changed is
/// inserted, changed then removed is removed, inserted then removed is nowhere, removed then
/// inserted again is updated. Any write to an entity counts as an update, even one that leaves it
/// equal. Two reductions that change the same ids give records that are not equal, so that an
/// observer of `changes` sees both.
public struct EntityChanges<ID: Hashable & Sendable>: Sendable, Equatable {
  @usableFromInline var _inserted: Set<ID> = []
  @usableFromInline var _updated: Set<ID> = []
  @usableFromInline var _removed: Set<ID> = []
  /// How many changes the table has recorded in all: tells apart two records of the same ids.
  @usableFromInline var stamp: UInt64 = 0

  /// The ids of the entities inserted.
  @inlinable
  public var inserted: Set<ID> { _inserted }

  /// The ids of the entities that were there before and are still there, changed.
  @inlinable
  public var updated: Set<ID> { _updated }

  /// The ids of the entities removed.
  @inlinable
  public var removed: Set<ID> { _removed }

  /// Creates an empty record.
  public init() {}

  /// Whether the reduction changed no entity.
  @inlinable
  public var isEmpty: Bool { _inserted.isEmpty && _updated.isEmpty && _removed.isEmpty }

  /// Whether the reduction inserted, updated or removed the entity with `id`.
  public func contains(_ id: ID) -> Bool {
    inserted.contains(id) || updated.contains(id) || removed.contains(id)
  }

  @inlinable
  mutating func removeAll() {
    _inserted.removeAll(keepingCapacity: true)
    _updated.removeAll(keepingCapacity: true)
    _removed.removeAll(keepingCapacity: true)
  }

  @inlinable
  mutating func recordInsertion(of id: ID) {
    stamp &+= 1
    if _removed.remove(id) != nil {
      _updated.insert(id)
    } else {
      _inserted.insert(id)
    }
  }

  @inlinable
  mutating func recordUpdate(of id: ID) {
    stamp &+= 1
    if !_inserted.contains(id) { _updated.insert(id) }
  }

  @inlinable
  mutating func recordRemoval(of id: ID) {
    stamp &+= 1
    if _inserted.remove(id) == nil {
      _updated.remove(id)
      _removed.insert(id)
    }
  }
}
