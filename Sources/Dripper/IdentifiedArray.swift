/// An ordered collection of elements with unique ids, with constant-time lookup by id.
///
/// The state of a list feature: ``Dripper/forEach(_:action:element:)-(_,CasePath<Self.Action,IdentifiedAction<ID,ElementAction>>,_)`` runs an element's dripper
/// on the element with the id its action carries, at a cost that does not grow with the list.
///
/// ```swift
/// struct Todos: Dripper {
///   struct State: Equatable, Sendable {
///     var rows: IdentifiedArrayOf<Row.State> = []
///   }
///   …
/// }
/// state.rows.append(Row.State(id: uuid(), title: "Milk"))
/// state.rows[id: id]?.isDone.toggle()
/// state.rows.remove(id: id)
/// ```
///
/// Ids must stay unique: inserting an element whose id is already present replaces nothing and
/// returns `false`.
public struct IdentifiedArray<ID: Hashable & Sendable, Element: Sendable>: Sendable {
  /// How an element gives its id.
  @usableFromInline let idOf: @Sendable (Element) -> ID
  @usableFromInline var _ids: [ID]
  @usableFromInline var _elements: [Element]
  @usableFromInline var _positions: [ID: Int]
  /// What a `forEach` watching the array's removals has seen removed.
  @usableFromInline var _removals = RemovalLog<ID>()

  /// Creates an empty array whose elements give their id through `id`.
  public init(id: any KeyPath<Element, ID> & Sendable) {
    self.init(idOf: { $0[keyPath: id] })
  }

  /// Creates an array of `elements`, keeping the first of elements that share an id.
  public init(_ elements: some Sequence<Element>, id: any KeyPath<Element, ID> & Sendable) {
    self.init(elements, idOf: { $0[keyPath: id] })
  }

  @usableFromInline
  init(idOf: @escaping @Sendable (Element) -> ID) {
    self.idOf = idOf
    self._ids = []
    self._elements = []
    self._positions = [:]
  }

  /// Creates an array of `elements`, whose ids must all differ: two that share an id stop the
  /// program, as TCA's `IdentifiedArray(uniqueElements:)` does. Use ``init(_:id:)`` to keep the
  /// first of elements that share an id instead.
  public init(uniqueElements elements: some Sequence<Element>, id: any KeyPath<Element, ID> & Sendable) {
    self.init(uniqueElements: elements, idOf: { $0[keyPath: id] })
  }

  @usableFromInline
  init(_ elements: some Sequence<Element>, idOf: @escaping @Sendable (Element) -> ID) {
    self.init(idOf: idOf)
    for element in elements { append(element) }
  }

  @usableFromInline
  init(uniqueElements elements: some Sequence<Element>, idOf: @escaping @Sendable (Element) -> ID) {
    self.init(idOf: idOf)
    for element in elements {
      let id = idOf(element)
      precondition(_positions[id] == nil, "IdentifiedArray(uniqueElements:): two elements have the id \(id)")
      append(element)
    }
  }

  /// The ids, in order.
  @inlinable
  public var ids: [ID] { _ids }

  /// The elements, in order.
  @inlinable
  public var elements: [Element] { _elements }

  /// The position of the element with `id`.
  ///
  /// - Complexity: O(1) on average.
  @inlinable
  public func index(id: ID) -> Int? { _positions[id] }

  /// Whether an element has `id`.
  ///
  /// - Complexity: O(1) on average.
  @inlinable
  public func contains(id: ID) -> Bool { _positions[id] != nil }

  /// The element with `id`, or `nil`. Setting an element replaces the one with its id, or appends
  /// it; setting `nil` removes the element.
  ///
  /// ```swift
  /// state.rows[id: id]?.title = "Oat milk"   // in place
  /// state.rows[id: id] = nil                 // removes it
  /// ```
  ///
  /// - Complexity: O(1) on average to read, change in place or append; O(*n*) to remove.
  @inlinable
  public subscript(id id: ID) -> Element? {
    get { _positions[id].map { _elements[$0] } }
    set {
      if let position = _positions[id] {
        if let newValue {
          precondition(idOf(newValue) == id, "IdentifiedArray: an element's id must not change")
          _elements[position] = newValue
        } else {
          remove(at: position)
        }
      } else if let newValue {
        precondition(idOf(newValue) == id, "IdentifiedArray: an element's id must not change")
        append(newValue)
      }
    }
    _modify {
      guard let position = _positions[id] else {
        var element: Element?
        yield &element
        if let element {
          precondition(idOf(element) == id, "IdentifiedArray: an element's id must not change")
          append(element)
        }
        return
      }
      // The element is moved out of the array, not copied: changing it in place then copies
      // nothing it holds. It is moved to the end and removed from there, and put back the same way.
      let last = _elements.count - 1
      _elements.swapAt(position, last)
      var element: Element? = _elements.removeLast()
      defer {
        if let element {
          precondition(idOf(element) == id, "IdentifiedArray: an element's id must not change")
          _elements.append(element)
          _elements.swapAt(position, last)
        } else {
          // Removed: the element displaced to `position` goes back to the end, and the rest
          // closes up.
          if position < last { _elements.append(_elements.remove(at: position)) }
          _ids.remove(at: position)
          _positions[id] = nil
          _removals.record(id)
          reindex(from: position)
        }
      }
      yield &element
    }
  }

  // MARK: - Adding and removing

  /// Appends `element` unless an element with its id is present; returns whether it was appended.
  ///
  /// - Complexity: O(1) amortized.
  @inlinable
  @discardableResult
  public mutating func append(_ element: Element) -> Bool {
    insert(element, at: _elements.count)
  }

  /// Appends each element whose id is not present yet.
  public mutating func append(contentsOf elements: some Sequence<Element>) {
    for element in elements { append(element) }
  }

  /// Inserts `element` at `position` unless an element with its id is present; returns whether it
  /// was inserted.
  ///
  /// - Complexity: O(*n*), O(1) amortized at the end.
  @inlinable
  @discardableResult
  public mutating func insert(_ element: Element, at position: Int) -> Bool {
    let id = idOf(element)
    guard _positions[id] == nil else { return false }
    _ids.insert(id, at: position)
    _elements.insert(element, at: position)
    if position == _elements.count - 1 {
      _positions[id] = position
    } else {
      reindex(from: position)
    }
    return true
  }

  /// Removes and returns the element at `position`.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  @discardableResult
  public mutating func remove(at position: Int) -> Element {
    let id = _ids.remove(at: position)
    _positions[id] = nil
    _removals.record(id)
    let element = _elements.remove(at: position)
    reindex(from: position)
    return element
  }

  /// Removes and returns the element with `id`, if there is one.
  ///
  /// - Complexity: O(*n*): the elements after it close up.
  @discardableResult
  public mutating func remove(id: ID) -> Element? {
    guard let position = _positions[id] else { return nil }
    return remove(at: position)
  }

  /// Removes the elements that satisfy `shouldBeRemoved`, in one pass over the array.
  ///
  /// - Complexity: O(*n*).
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    var kept: [Element] = []
    var keptIDs: [ID] = []
    for (id, element) in zip(_ids, _elements) {
      if try shouldBeRemoved(element) {
        _removals.record(id)
      } else {
        kept.append(element)
        keptIDs.append(id)
      }
    }
    guard kept.count != _elements.count else { return }
    replaceContents(elements: kept, ids: keptIDs)
  }

  /// Removes every element.
  public mutating func removeAll() {
    _removals.record(contentsOf: _ids)
    _ids.removeAll()
    _elements.removeAll()
    _positions.removeAll()
  }

  /// Moves the elements at `source` to just before `destination`, as a list's drag and drop does
  /// (SwiftUI's `onMove`).
  ///
  /// ```swift
  /// case .moved(let source, let destination):
  ///   state.todos.move(fromOffsets: source, toOffset: destination)
  /// ```
  ///
  /// - Complexity: O(*n* log *n*) for *n* elements.
  public mutating func move(fromOffsets source: some Collection<Int>, toOffset destination: Int) {
    let moving = Set(source)
    guard !moving.isEmpty else { return }
    let sorted = moving.sorted()
    let moved = sorted.map { _elements[$0] }
    var remaining: [Element] = []
    var insertion = 0
    for (position, element) in _elements.enumerated() where !moving.contains(position) {
      if position < destination { insertion += 1 }
      remaining.append(element)
    }
    remaining.insert(contentsOf: moved, at: insertion)
    replaceContents(elements: remaining, ids: remaining.map(idOf))
  }

  /// Sorts the elements in place; each keeps its id.
  ///
  /// - Complexity: O(*n* log *n*).
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    let sorted = try _elements.sorted(by: areInIncreasingOrder)
    replaceContents(elements: sorted, ids: sorted.map(idOf))
  }

  /// Exchanges two elements: each keeps its id, which moves with it. `reverse()`, `shuffle()` and
  /// `partition(by:)` move elements through it.
  ///
  /// - Complexity: O(1).
  public mutating func swapAt(_ first: Int, _ second: Int) {
    guard first != second else { return }
    _elements.swapAt(first, second)
    _ids.swapAt(first, second)
    _positions[_ids[first]] = first
    _positions[_ids[second]] = second
  }

  /// Puts `elements`, with their `ids`, in place of the contents, keeping what else the array
  /// holds (its removal log).
  @usableFromInline
  mutating func replaceContents(elements: [Element], ids: [ID]) {
    _elements = elements
    _ids = ids
    _positions.removeAll(keepingCapacity: true)
    for (index, id) in ids.enumerated() { _positions[id] = index }
  }

  @usableFromInline
  mutating func reindex(from position: Int) {
    for index in position..<_ids.count { _positions[_ids[index]] = index }
  }
}

extension IdentifiedArray where Element: Comparable {
  /// Sorts the elements in increasing order; each keeps its id.
  public mutating func sort() {
    sort(by: <)
  }
}

extension IdentifiedArray where Element: Identifiable, Element.ID == ID {
  /// Creates an empty array.
  @inlinable
  public init() {
    self.init(idOf: { $0.id })
  }

  /// Creates an array of `elements`, keeping the first of elements that share an id.
  @inlinable
  public init(_ elements: some Sequence<Element>) {
    self.init(elements, idOf: { $0.id })
  }

  /// Creates an array of `elements`, whose ids must all differ: two that share an id stop the
  /// program, as TCA's does. For ids that come from outside (a file, a server), use ``init(_:)``,
  /// which keeps the first, and report the duplicates.
  ///
  /// ```swift
  /// let todos = IdentifiedArray(uniqueElements: [Todo(id: 1), Todo(id: 2)])
  /// ```
  @inlinable
  public init(uniqueElements elements: some Sequence<Element>) {
    self.init(uniqueElements: elements, idOf: { $0.id })
  }
}

/// An ``IdentifiedArray`` of identifiable elements.
public typealias IdentifiedArrayOf<Element: Identifiable & Sendable> = IdentifiedArray<Element.ID, Element>
where Element.ID: Sendable

extension IdentifiedArray: ChildCollection {
  /// A row of a list assigned whole is the row of the same id before it: its effects go on.
  @usableFromInline
  static var newCollectionHasNewChildren: Bool { false }

  @inlinable
  func containsChild(_ id: ID) -> Bool { _positions[id] != nil }

  @usableFromInline
  var presence: @Sendable (AnySendableHashable) -> Bool {
    let positions = _positions
    return { ($0.base as? ID).map { positions[$0] != nil } ?? false }
  }
}
