/// A list that keeps its first element inline and allocates only for a second.
///
/// For the registry's lists that nearly always hold one element: an effect's keys (its one id),
/// a pour's waiters (the caller of `PourTask.finish()`), the tasks and continuations an event
/// cancels or resumes. As arrays they cost an allocation each time an effect starts or ends.
///
/// The registry visits one with ``forEachElement(_:)``, which returns at once when the list is empty:
/// a `for` loop makes an iterator, through generic code that copies both parts even when there is
/// nothing to visit.
struct SmallList<Element>: Sequence {
  private var first: Element?
  /// `nil` rather than empty until a second element comes: an empty array is a reference to the
  /// shared empty storage, retained and released with each list made, copied or dropped, and the
  /// registry makes several lists at each event.
  private var rest: [Element]?

  init() {}

  var isEmpty: Bool { first == nil }

  mutating func append(_ element: Element) {
    if first == nil {
      first = element
    } else if rest == nil {
      rest = [element]
    } else {
      rest!.append(element)
    }
  }

  mutating func append(contentsOf other: some Sequence<Element>) {
    for element in other { append(element) }
  }

  /// Appends another list's elements, visiting them with ``forEachElement(_:)`` rather than an
  /// iterator: a pour's waiters join the continuations to resume this way each time its last
  /// effect ends.
  mutating func append(contentsOf other: SmallList<Element>) {
    other.forEachElement { append($0) }
  }

  /// Calls `body` on each element in order, without making an iterator.
  @inline(__always)
  func forEachElement(_ body: (Element) throws -> Void) rethrows {
    guard let first else { return }
    try body(first)
    guard let rest else { return }
    for element in rest { try body(element) }
  }

  func makeIterator() -> InlineFirstIterator<IndexingIterator<[Element]>> {
    InlineFirstIterator(first: first, rest: rest?.makeIterator())
  }
}

/// Iterates over an element kept inline, then over the rest: how ``SmallList`` and `SlotSet` iterate
/// without allocating.
struct InlineFirstIterator<Rest: IteratorProtocol>: IteratorProtocol {
  var first: Rest.Element?
  var rest: Rest?

  mutating func next() -> Rest.Element? {
    if let element = first {
      first = nil
      return element
    }
    return rest?.next()
  }
}

extension SmallList: ExpressibleByArrayLiteral {
  init(arrayLiteral elements: Element...) {
    append(contentsOf: elements)
  }
}

extension SmallList: Sendable where Element: Sendable {}
