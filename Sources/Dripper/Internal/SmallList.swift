/// A list that keeps its first element inline and allocates only for a second.
///
/// The registry's lists of continuations to resume hold one waiter nearly always (the caller of
/// `PourTask.finish()`): as arrays they cost an allocation each time an effect ends.
struct SmallList<Element>: Sequence {
  private var first: Element?
  private var rest: [Element] = []

  init() {}

  var isEmpty: Bool { first == nil }

  mutating func append(_ element: Element) {
    if first == nil {
      first = element
    } else {
      rest.append(element)
    }
  }

  mutating func append(contentsOf other: some Sequence<Element>) {
    for element in other { append(element) }
  }

  struct Iterator: IteratorProtocol {
    fileprivate var first: Element?
    fileprivate var rest: IndexingIterator<[Element]>

    mutating func next() -> Element? {
      if let element = first {
        first = nil
        return element
      }
      return rest.next()
    }
  }

  func makeIterator() -> Iterator { Iterator(first: first, rest: rest.makeIterator()) }
}

extension SmallList: ExpressibleByArrayLiteral {
  init(arrayLiteral elements: Element...) {
    append(contentsOf: elements)
  }
}

extension SmallList: Sendable where Element: Sendable {}
