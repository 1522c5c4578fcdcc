/// Every entity of one type, by id: a table of a normalized state, with secondary indexes and a
/// record of the ids each reduction changed.
///
/// Normalized state keeps each entity once, in the table of its type, and refers to others by id,
/// as a database does (Verge's ORM, Redux's `createEntityAdapter`). A todo app keeps its lists and
/// its todos in two tables, each todo holding its list's id:
///
/// ```swift
/// struct State: Equatable, Sendable {
///   var lists = EntityTable<TodoList>()
///   var todos = EntityTable<Todo>().indexed(by: \.listID)
/// }
///
/// state.todos.insert(Todo(id: 7, listID: groceries, title: "Milk"))
/// state.todos[id: 7]?.isDone = true                      // in place, O(1)
/// let open = state.todos.entities(where: \.listID, equals: groceries)
/// ```
///
/// Reading or changing an entity by id costs the same in a table of ten as in one of a hundred
/// thousand. An index answers "the entities whose key is k" in time proportional to how many there
/// are, and the table keeps it up to date through every change, including a change of the key.
/// Removing an entity closes up the order, which costs time proportional to the entities after it.
///
/// With ``Dripper/tracksChanges(of:)``, ``changes`` holds the ids the last reduction inserted,
/// updated and removed, for observers that react to "what changed" without comparing tables.
///
/// Two tables are equal when their entities are, in the same order: indexes and the record of
/// changes are bookkeeping, not state, and do not take part in equality, in dumps or in test
/// diffs.
public struct EntityTable<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  // The paths every change takes are `@inlinable`, so that they are specialized for the entity
  // type where they are used: unspecialized, an update costs a hundred times more.
  @usableFromInline var _entities: IdentifiedArrayOf<Entity>
  @usableFromInline var _changes: EntityChanges<Entity.ID>
  @usableFromInline var indexes: [SecondaryIndex]
  /// Whether a ``Dripper/tracksChanges(of:)`` has asked for ``changes``: a table nobody asked
  /// keeps no record, so that it does not grow.
  @usableFromInline var recordsChanges: Bool

  /// The entities, in the order they were inserted.
  @inlinable
  public var entities: IdentifiedArrayOf<Entity> { _entities }

  /// The ids the last reduction changed, when a ``Dripper/tracksChanges(of:)`` keeps them;
  /// empty otherwise.
  @inlinable
  public var changes: EntityChanges<Entity.ID> { _changes }

  /// Creates an empty table.
  public init() {
    self.init(IdentifiedArray())
  }

  /// Creates a table of `entities`, keeping the first of entities that share an id.
  public init(_ entities: some Sequence<Entity>) {
    self.init(IdentifiedArray(entities))
  }

  init(_ entities: IdentifiedArrayOf<Entity>) {
    self._entities = entities
    self._changes = EntityChanges()
    self.indexes = []
    self.recordsChanges = false
  }

  // MARK: - Reading

  /// The ids, in order.
  @inlinable
  public var ids: [Entity.ID] { entities.ids }

  /// Whether an entity has `id`.
  @inlinable
  public func contains(id: Entity.ID) -> Bool { entities.contains(id: id) }

  /// The entity with `id`, or `nil`. Setting an entity inserts or replaces it, keeping its place;
  /// setting `nil` removes it. Changes made in place copy nothing else the table holds.
  ///
  /// ```swift
  /// state.todos[id: id]?.title = "Oat milk"
  /// state.todos[id: id] = nil
  /// ```
  @inlinable
  public subscript(id id: Entity.ID) -> Entity? {
    get { entities[id: id] }
    set {
      let write = beginWrite(id)
      _entities[id: id] = newValue
      endWrite(id, write)
    }
    _modify {
      let write = beginWrite(id)
      defer { endWrite(id, write) }
      yield &_entities[id: id]
    }
  }

  // MARK: - Changing

  /// Inserts `entity` at the end unless an entity with its id is present; returns whether it was
  /// inserted.
  @discardableResult
  @inlinable
  public mutating func insert(_ entity: Entity) -> Bool {
    guard _entities.append(entity) else { return false }
    for position in indexes.indices { indexes[position].add(entity) }
    record(inserted: entity.id)
    return true
  }

  /// Inserts each entity whose id is not present yet.
  public mutating func insert(contentsOf entities: some Sequence<Entity>) {
    for entity in entities { insert(entity) }
  }

  /// Replaces the entity with `entity`'s id, keeping its place, or inserts `entity` at the end.
  public mutating func upsert(_ entity: Entity) {
    self[id: entity.id] = entity
  }

  /// Removes and returns the entity with `id`, if there is one.
  @discardableResult
  @inlinable
  public mutating func remove(id: Entity.ID) -> Entity? {
    guard let entity = _entities.remove(id: id) else { return nil }
    for position in indexes.indices { indexes[position].remove(entity) }
    record(removed: id)
    return entity
  }

  /// Removes the entities that satisfy `shouldBeRemoved`, in one pass over the table.
  public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
    var removed: [Entity] = []
    try _entities.removeAll { entity in
      guard try shouldBeRemoved(entity) else { return false }
      removed.append(entity)
      return true
    }
    for entity in removed {
      for position in indexes.indices { indexes[position].remove(entity) }
      record(removed: entity.id)
    }
  }

  // MARK: - Secondary indexes

  /// Keeps an index of the entities by the value at `keyPath`, for
  /// ``entities(where:equals:)`` and ``ids(where:equals:)``. Adding an index the table has does
  /// nothing.
  @inlinable
  public mutating func addIndex<Key: Hashable & Sendable>(_ keyPath: any KeyPath<Entity, Key> & Sendable) {
    guard index(of: keyPath) == nil else { return }
    var index = SecondaryIndex(keyPath: keyPath, key: { AnySendableHashable($0[keyPath: keyPath]) })
    for entity in entities { index.add(entity) }
    indexes.append(index)
  }

  /// This table with an index by the value at `keyPath`: see ``addIndex(_:)``.
  ///
  /// ```swift
  /// var todos = EntityTable<Todo>().indexed(by: \.listID)
  /// ```
  public func indexed<Key: Hashable & Sendable>(by keyPath: any KeyPath<Entity, Key> & Sendable) -> Self {
    var table = self
    table.addIndex(keyPath)
    return table
  }

  /// The ids of the entities whose value at `keyPath` is `key`, in the table's order.
  ///
  /// With an index by `keyPath`, this costs time proportional to the entities it returns (and
  /// the log of their number, to order them); without one, it looks at every entity.
  public func ids<Key: Hashable & Sendable>(
    where keyPath: any KeyPath<Entity, Key> & Sendable, equals key: Key
  ) -> [Entity.ID] {
    guard let index = index(of: keyPath) else {
      return entities.filter { $0[keyPath: keyPath] == key }.map(\.id)
    }
    guard let bucket = indexes[index].buckets[AnySendableHashable(key)] else { return [] }
    return bucket.compactMap { entities.index(id: $0) }.sorted().map { entities.ids[$0] }
  }

  /// The entities whose value at `keyPath` is `key`, in the table's order: see
  /// ``ids(where:equals:)``.
  public func entities<Key: Hashable & Sendable>(
    where keyPath: any KeyPath<Entity, Key> & Sendable, equals key: Key
  ) -> [Entity] {
    ids(where: keyPath, equals: key).compactMap { entities[id: $0] }
  }

  @usableFromInline
  func index(of keyPath: AnyKeyPath) -> Int? {
    indexes.firstIndex { ($0.keyPath as AnyKeyPath) == keyPath }
  }

  // MARK: - Recording changes

  /// Starts the record of a new reduction: what the last one changed is forgotten.
  @inlinable
  mutating func beginReduction() {
    recordsChanges = true
    if !_changes.isEmpty { _changes.removeAll() }
  }

  @inlinable
  mutating func record(inserted id: Entity.ID) {
    if recordsChanges { _changes.recordInsertion(of: id) }
  }

  @inlinable
  mutating func record(removed id: Entity.ID) {
    if recordsChanges { _changes.recordRemoval(of: id) }
  }

  /// What a write through ``subscript(id:)`` needs to know afterwards: whether the entity was
  /// there, and its index keys before the write.
  @usableFromInline
  struct Write {
    @usableFromInline let existed: Bool
    @usableFromInline let count: Int
    @usableFromInline let keys: [AnySendableHashable]

    @inlinable
    init(existed: Bool, count: Int, keys: [AnySendableHashable]) {
      self.existed = existed
      self.count = count
      self.keys = keys
    }
  }

  // Both are `mutating`, though `beginWrite` changes nothing: a non-mutating method called from
  // the subscript's `_modify` would be handed a copy of the whole table.
  @inlinable
  mutating func beginWrite(_ id: Entity.ID) -> Write {
    guard !indexes.isEmpty, let entity = _entities[id: id] else {
      return Write(existed: _entities.contains(id: id), count: _entities.count, keys: [])
    }
    return Write(existed: true, count: _entities.count, keys: indexes.map { $0.key(entity) })
  }

  @inlinable
  mutating func endWrite(_ id: Entity.ID, _ write: Write) {
    // A write through `subscript(id:)` inserts or removes this id or neither: the count tells which.
    let exists = write.existed ? _entities.count == write.count : _entities.count > write.count
    switch (write.existed, exists) {
    case (false, false): return
    case (false, true): record(inserted: id)
    case (true, false): record(removed: id)
    case (true, true): if recordsChanges { _changes.recordUpdate(of: id) }
    }
    guard !indexes.isEmpty else { return }
    let entity = _entities[id: id]
    for position in indexes.indices {
      let old = write.existed ? write.keys[position] : nil
      let new = entity.map { indexes[position].key($0) }
      guard old != new else { continue }
      if let old { indexes[position].remove(id, from: old) }
      if let new { indexes[position].add(id, to: new) }
    }
  }

  /// The ids of the entities by one key: a set per value of the key.
  @usableFromInline
  struct SecondaryIndex: Sendable {
    @usableFromInline let keyPath: any PartialKeyPath<Entity> & Sendable
    @usableFromInline let key: @Sendable (Entity) -> AnySendableHashable
    @usableFromInline var buckets: [AnySendableHashable: Set<Entity.ID>]

    @inlinable
    init(
      keyPath: any PartialKeyPath<Entity> & Sendable, key: @escaping @Sendable (Entity) -> AnySendableHashable
    ) {
      self.keyPath = keyPath
      self.key = key
      self.buckets = [:]
    }

    @inlinable
    mutating func add(_ entity: Entity) { add(entity.id, to: key(entity)) }
    @inlinable
    mutating func remove(_ entity: Entity) { remove(entity.id, from: key(entity)) }

    @inlinable
    mutating func add(_ id: Entity.ID, to key: AnySendableHashable) {
      buckets[key, default: []].insert(id)
    }

    @inlinable
    mutating func remove(_ id: Entity.ID, from key: AnySendableHashable) {
      guard var bucket = buckets.removeValue(forKey: key) else { return }
      bucket.remove(id)
      if !bucket.isEmpty { buckets[key] = bucket }
    }
  }
}
