extension IdentifiedArray {
  /// The elements, in order: swift-identified-collections' `elements`, named as a dictionary's.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var values: [Element] { _elements }

  /// Removes the elements at `offsets`, as a list's swipe to delete does (SwiftUI's `onDelete`).
  ///
  /// ```swift
  /// case .delete(let offsets):
  ///   state.todos.remove(atOffsets: offsets)
  /// ```
  ///
  /// An offset past the end stops the program, as an array's `remove(at:)` does.
  ///
  /// - Complexity: O(*n*) for *n* elements.
  public mutating func remove(atOffsets offsets: some Sequence<Int>) {
    let removing = Set(offsets)
    guard !removing.isEmpty else { return }
    precondition(
      removing.allSatisfy { $0 >= 0 && $0 < _elements.count },
      "IdentifiedArray.remove(atOffsets:): an offset is out of range")
    var kept: [Element] = []
    var keptIDs: [ID] = []
    kept.reserveCapacity(_elements.count - removing.count)
    keptIDs.reserveCapacity(_elements.count - removing.count)
    for (position, (id, element)) in zip(_ids, _elements).enumerated() {
      if removing.contains(position) {
        _removals.record(id)
      } else {
        kept.append(element)
        keptIDs.append(id)
      }
    }
    replaceContents(elements: kept, ids: keptIDs)
  }

  /// The elements that satisfy `isIncluded`, in order, as an `IdentifiedArray`.
  ///
  /// ```swift
  /// let done = state.todos.filter(\.isComplete)
  /// ```
  ///
  /// - Complexity: O(*n*).
  public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> Self {
    var result = Self(idOf: idOf)
    for (id, element) in zip(_ids, _elements) where try isIncluded(element) {
      result._positions[id] = result._elements.count
      result._ids.append(id)
      result._elements.append(element)
    }
    return result
  }

  /// Replaces the element with `element`'s id, or appends `element` if no element has its id;
  /// returns the element it replaced.
  ///
  /// ```swift
  /// state.contacts.updateOrAppend(contact)
  /// ```
  ///
  /// - Complexity: O(1) on average.
  @discardableResult
  public mutating func updateOrAppend(_ element: Element) -> Element? {
    let id = idOf(element)
    guard let position = _positions[id] else {
      append(element)
      return nil
    }
    defer { _elements[position] = element }
    return _elements[position]
  }

  /// Replaces the element with `element`'s id, in its place, or inserts `element` at `position`;
  /// returns the element it replaced and where `element` now is.
  ///
  /// - Complexity: O(1) on average to replace; O(*n*) to insert.
  @discardableResult
  public mutating func updateOrInsert(_ element: Element, at position: Int) -> (
    originalMember: Element?, index: Int
  ) {
    let id = idOf(element)
    if let existing = _positions[id] {
      defer { _elements[existing] = element }
      return (_elements[existing], existing)
    }
    insert(element, at: position)
    return (nil, position)
  }

  /// Replaces the element at `position` with `element`, which must have the same id; returns the
  /// element it replaced.
  ///
  /// - Complexity: O(1).
  @discardableResult
  public mutating func update(_ element: Element, at position: Int) -> Element {
    precondition(idOf(element) == _ids[position], "IdentifiedArray: an element's id must not change")
    defer { _elements[position] = element }
    return _elements[position]
  }
}
