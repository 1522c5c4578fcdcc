extension EntityTable: RandomAccessCollection {
  /// The position of the first entity.
  @inlinable
  public var startIndex: Int { 0 }

  /// The position after the last entity.
  @inlinable
  public var endIndex: Int { entities.count }

  /// The entity at `position`.
  @inlinable
  public subscript(position: Int) -> Entity { entities[position] }
}

extension EntityTable: ExpressibleByArrayLiteral {
  /// Creates a table from a literal; entities that share an id keep the first.
  public init(arrayLiteral entities: Entity...) {
    self.init(entities)
  }
}

extension EntityTable: Equatable where Entity: Equatable {
  /// Whether two tables hold equal entities in the same order; indexes and changes are not
  /// compared.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.entities == rhs.entities }
}

extension EntityTable: Encodable where Entity: Encodable {
  /// Encodes the entities as an array; indexes and changes are not encoded.
  public func encode(to encoder: any Encoder) throws {
    try entities.encode(to: encoder)
  }
}

extension EntityTable: Decodable where Entity: Decodable {
  /// Decodes an array of entities; throws if two share an id. The table has no index: add them
  /// with ``addIndex(_:)``.
  public init(from decoder: any Decoder) throws {
    self.init(try IdentifiedArrayOf<Entity>(from: decoder))
  }
}

extension EntityTable: CustomReflectable {
  /// The entities, as an array shows them: dumps and test diffs show no bookkeeping.
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: Array(entities), displayStyle: .collection)
  }
}

extension EntityTable: CustomStringConvertible {
  /// The entities, as an array prints them.
  public var description: String { entities.description }
}
