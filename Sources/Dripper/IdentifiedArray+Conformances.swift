extension IdentifiedArray: CustomReflectable {
  /// The elements, as a collection: what a test's diff shows.
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: _elements, displayStyle: .collection)
  }
}

extension IdentifiedArray: RandomAccessCollection, MutableCollection {
  /// The position of the first element.
  @inlinable
  public var startIndex: Int { 0 }

  /// The position after the last element.
  @inlinable
  public var endIndex: Int { _elements.count }

  /// The element at `position`. Mutating it in place must not change its id.
  @inlinable
  public subscript(position: Int) -> Element {
    get { _elements[position] }
    _modify {
      // The id from the element itself, not from `_ids`: the element is about to be touched
      // anyway, and in a long list a read of `_ids` is a cache miss of its own.
      let id = idOf(_elements[position])
      yield &_elements[position]
      precondition(idOf(_elements[position]) == id, "IdentifiedArray: an element's id must not change")
    }
  }
}

extension IdentifiedArray: ExpressibleByArrayLiteral where Element: Identifiable, Element.ID == ID {
  /// Creates an array from a literal; elements that share an id keep the first.
  @inlinable
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

extension IdentifiedArray: Equatable where Element: Equatable {
  /// Whether two arrays hold equal elements in the same order.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs._elements == rhs._elements }
}

extension IdentifiedArray: Hashable where Element: Hashable {
  /// Hashes the elements, in order.
  public func hash(into hasher: inout Hasher) { hasher.combine(_elements) }
}

extension IdentifiedArray: Encodable where Element: Encodable {
  /// Encodes the elements as an array.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(_elements)
  }
}

extension IdentifiedArray: Decodable where Element: Decodable & Identifiable, Element.ID == ID {
  /// Decodes an array of elements; throws if two share an id.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let elements = try container.decode([Element].self)
    self.init(elements)
    guard count == elements.count else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "two elements share an id")
    }
  }
}

extension IdentifiedArray: CustomStringConvertible {
  /// The elements, as an array prints them.
  public var description: String { _elements.description }
}
