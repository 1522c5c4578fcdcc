import Synchronization

/// The id of an element of a ``StackState``: given when the element is pushed, in order (0, 1,
/// 2, …), so the same pushes give the same ids in every run and in tests.
///
/// In a Station's reductions, ids come from the Station: no id is given twice in its life, even to
/// a stack assigned anew (`state.path = StackState()`), so an effect of an element popped long ago
/// never reaches a new element. Outside a reduction (an initial state, a test's expected state),
/// a stack numbers its own elements, after the highest id it has held. A fresh Station, and a fresh
/// `TestStation`, start from 0.
public struct StackElementID: Hashable, Sendable, Comparable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The element's number in its stack.
  public let rawValue: Int

  /// The id with number `rawValue`.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The id with number `value`, for tests: `.element(id: 0, action: …)`.
  public init(integerLiteral value: Int) { self.init(rawValue: value) }

  /// Whether `lhs` was pushed before `rhs`.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `#0`, `#1`, …
  public var description: String { "#\(rawValue)" }
}

/// The screens of a navigation stack: the state of each, bottom first, each with an id.
///
/// ```swift
/// struct State: Equatable, Sendable {
///   var path = StackState<Path.State>()
/// }
/// state.path.append(.detail(Detail.State(id: 7)))
/// state.path.popLast()
/// ```
///
/// A parent runs the elements with ``Dripper/forEach(_:action:destination:)-(_,CasePath<Self.Action,StackAction<ElementState,ElementAction>>,_)``. An element is found
/// by id by bisecting the ids, which increase from the bottom (or, after a push named an id lower
/// than the top's, by hashing it): a few comparisons at the depths people navigate.
public struct StackState<Element: Sendable>: Sendable {
  @usableFromInline var _ids: [StackElementID]
  @usableFromInline var _elements: [Element]
  /// The position of each id. Elements leave only from the top, so no position ever changes.
  @usableFromInline var _positions: [StackElementID: Int]
  /// Whether the ids increase from the bottom, as they do unless a push named a smaller id: then
  /// an id is found by bisecting them, which costs less than hashing it.
  @usableFromInline var _idsIncrease: Bool
  /// The number the next pushed element gets.
  @usableFromInline var nextID: Int
  /// What the stack dripper watching the stack's removals has seen removed.
  @usableFromInline var _removals = RemovalLog<StackElementID>()

  /// An empty stack.
  public init() {
    _ids = []
    _elements = []
    _positions = [:]
    _idsIncrease = true
    nextID = 0
  }

  /// A stack of `elements`, bottom first, with ids 0, 1, 2, …
  public init(_ elements: some Sequence<Element>) {
    self.init()
    for element in elements { append(element) }
  }

  /// The ids, bottom first.
  @inlinable
  public var ids: [StackElementID] { _ids }

  /// The position of the element with `id`: a bisection of the ids, or a hash lookup after a
  /// push out of order.
  @inlinable
  public func index(id: StackElementID) -> Int? {
    guard _idsIncrease else { return _positions[id] }
    var (low, high) = (0, _ids.count)
    while low < high {
      let middle = (low + high) / 2
      if _ids[middle] < id { low = middle + 1 } else { high = middle }
    }
    return low < _ids.count && _ids[low] == id ? low : nil
  }

  /// The element with `id`, or `nil`; setting `nil` pops it and every element above it, and setting
  /// an element under an id not on the stack pushes it with that id, as TCA's does (so a test can
  /// assert a push: `$0.path[id: 1] = .detail(…)`).
  @inlinable
  public subscript(id id: StackElementID) -> Element? {
    get { index(id: id).map { _elements[$0] } }
    set {
      guard let position = index(id: id) else {
        if let newValue { push(newValue, id: id) }
        return
      }
      if let newValue {
        _elements[position] = newValue
      } else {
        removeSuffix(from: position)
      }
    }
    _modify {
      guard let position = index(id: id) else {
        var absent: Element? = nil
        yield &absent
        if let absent { push(absent, id: id) }
        return
      }
      var element: Element? = _elements[position]
      // Moved out and back, not copied: a change in place copies nothing the element holds.
      defer {
        if let element {
          _elements[position] = element
        } else {
          removeSuffix(from: position)
        }
      }
      yield &element
    }
  }

  /// Pushes `element` on top; returns its id.
  @inlinable
  @discardableResult
  public mutating func append(_ element: Element) -> StackElementID {
    let id = StackElementID(rawValue: StackElementIDs.take(atLeast: nextID))
    nextID = id.rawValue + 1
    _positions[id] = _ids.count
    _ids.append(id)
    _elements.append(element)
    return id
  }

  /// Pushes `element` with `id`, as a ``StackAction/push(id:state:)`` does; returns whether it was
  /// pushed (not when an element has `id` already).
  @discardableResult
  public mutating func push(_ element: Element, id: StackElementID) -> Bool {
    guard index(id: id) == nil else { return false }
    nextID = Swift.max(nextID, id.rawValue + 1)
    StackElementIDs.skip(past: id.rawValue)
    if let top = _ids.last, id < top { _idsIncrease = false }
    _positions[id] = _ids.count
    _ids.append(id)
    _elements.append(element)
    return true
  }

  /// Pops the top element and returns it, or `nil` if the stack is empty.
  @discardableResult
  public mutating func popLast() -> Element? {
    guard !_elements.isEmpty else { return nil }
    let id = _ids.removeLast()
    _positions[id] = nil
    _removals.record(id)
    if _ids.isEmpty { _idsIncrease = true }
    return _elements.removeLast()
  }

  /// Pops the element with `id` and every element above it.
  public mutating func pop(from id: StackElementID) {
    if let position = index(id: id) { removeSuffix(from: position) }
  }

  /// Pops every element above the one with `id`.
  public mutating func pop(to id: StackElementID) {
    if let position = index(id: id) { removeSuffix(from: position + 1) }
  }

  /// Pops every element.
  public mutating func removeAll() {
    removeSuffix(from: 0)
  }

  @inlinable
  mutating func removeSuffix(from position: Int) {
    for id in _ids[position...] { _positions[id] = nil }
    _removals.record(contentsOf: _ids[position...])
    _ids.removeSubrange(position...)
    _elements.removeSubrange(position...)
    if _ids.isEmpty { _idsIncrease = true }
  }
}

extension StackState: RandomAccessCollection {
  /// The position of the bottom element.
  public var startIndex: Int { 0 }

  /// The position after the top element.
  public var endIndex: Int { _elements.count }

  /// The element at `position`, from the bottom.
  public subscript(position: Int) -> Element { _elements[position] }
}

extension StackState: ExpressibleByArrayLiteral {
  /// A stack of the elements, bottom first, with ids 0, 1, 2, …
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension StackState: Equatable where Element: Equatable {
  /// Whether two stacks hold equal elements with the same ids.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs._ids == rhs._ids && lhs._elements == rhs._elements
  }
}

extension StackState: CustomReflectable {
  /// Each element with its id, bottom first.
  public var customMirror: Mirror {
    Mirror(
      self, children: zip(_ids, _elements).map { (label: $0.description, value: $1 as Any) },
      displayStyle: .dictionary)
  }
}

/// The actions of a navigation stack: an element's, a push, a pop.
///
/// ```swift
/// case path(StackAction<Path.State, Path.Action>)
/// …
/// station.pour(.path(.element(id: 0, action: .detail(.saveTapped))))
/// station.pour(.path(.popFrom(id: 0)))
/// ```
public enum StackAction<State: Sendable, Action: Sendable>: Sendable {
  /// An action of the element with `id`.
  case element(id: StackElementID, action: Action)
  /// Pops the element with `id` and every element above it, after the parent has seen the action.
  case popFrom(id: StackElementID)
  /// Pushes `state` with `id`, after the parent has seen the action (a view's navigation link).
  case push(id: StackElementID, state: State)
}

extension StackAction: Equatable where State: Equatable, Action: Equatable {}

extension StackElementID: DumpsAsDescription {}

extension StackState: ChildCollection {
  /// A stack assigned whole is another stack: its elements are new even where an id is an old
  /// element's (one made outside a reduction, numbered from 0), so the old elements' effects end.
  @usableFromInline
  static var newCollectionHasNewChildren: Bool { true }

  @inlinable
  func containsChild(_ id: StackElementID) -> Bool { index(id: id) != nil }

  @usableFromInline
  var presence: @Sendable (AnySendableHashable) -> Bool {
    let positions = _positions
    return { ($0.base as? StackElementID).map { positions[$0] != nil } ?? false }
  }
}

/// Where the stacks a Station's reductions build take their element ids: one counter per Station,
/// found through the reduction's dependencies, so that no id is given twice in the Station's life
/// (see ``StackElementID``).
@usableFromInline
final class StackElementIDs: Sendable {
  /// The id the next element gets, unless its stack has held a higher one.
  private let next = Atomic<Int>(0)

  @usableFromInline
  init() {}

  /// An id for an element pushed on a stack whose next id is `local`: the Station's next, or
  /// `local` if higher; `local` outside a Station's reduction.
  @usableFromInline
  static func take(atLeast local: Int) -> Int {
    guard let ids = DependencyValues.current.stackElementIDs else { return local }
    var next = ids.next.load(ordering: .relaxed)
    while true {
      let id = Swift.max(local, next)
      let (exchanged, found) = ids.next.compareExchange(expected: next, desired: id + 1, ordering: .relaxed)
      if exchanged { return id }
      next = found
    }
  }

  /// Makes sure the Station never gives `id`, pushed by name.
  @usableFromInline
  static func skip(past id: Int) {
    guard let ids = DependencyValues.current.stackElementIDs else { return }
    ids.next.max(id + 1, ordering: .relaxed)
  }
}
