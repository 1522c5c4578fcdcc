/// The slots filed under one key or one pour: usually one, so one is stored inline, without the
/// allocation of a `Set`.
///
/// Every operation mutates in place: a key that thousands of effects share (every effect of a
/// `forEach` row shares its row's namespace) costs O(1) per effect that starts or ends under it.
struct SlotSet: Sequence, Sendable {
  private enum Storage {
    case empty
    case one(EffectSlotID)
    case many(Set<EffectSlotID>)
  }

  private var storage = Storage.empty

  init() {}

  var isEmpty: Bool {
    switch storage {
    case .empty: true
    case .one: false
    case .many(let set): set.isEmpty
    }
  }

  var count: Int {
    switch storage {
    case .empty: 0
    case .one: 1
    case .many(let set): set.count
    }
  }

  mutating func insert(_ slot: EffectSlotID) {
    switch storage {
    case .empty:
      storage = .one(slot)
    case .one(let existing):
      guard existing != slot else { return }
      storage = .many([existing, slot])
    case .many(var set):
      storage = .empty  // Leaves `set` uniquely referenced, so that the insertion copies nothing.
      set.insert(slot)
      storage = .many(set)
    }
  }

  mutating func remove(_ slot: EffectSlotID) {
    switch storage {
    case .empty:
      return
    case .one(let existing):
      if existing == slot { storage = .empty }
    case .many(var set):
      storage = .empty
      set.remove(slot)
      storage = set.isEmpty ? .empty : .many(set)
    }
  }

  /// Iterates without allocating: an `AnyIterator` would box its base on the heap.
  func makeIterator() -> InlineFirstIterator<Set<EffectSlotID>.Iterator> {
    switch storage {
    case .empty: InlineFirstIterator(first: nil, rest: nil)
    case .one(let slot): InlineFirstIterator(first: slot, rest: nil)
    case .many(let set): InlineFirstIterator(first: nil, rest: set.makeIterator())
    }
  }
}

/// A first-in, first-out queue whose removals from the front cost O(1), amortized: the array
/// is compacted only once half of it has been consumed.
struct FIFO<Element> {
  private var elements: [Element] = []
  private var head = 0

  init() {}

  var isEmpty: Bool { head == elements.count }

  var count: Int { elements.count - head }

  var first: Element? { isEmpty ? nil : elements[head] }

  mutating func append(_ element: Element) {
    elements.append(element)
  }

  mutating func removeFirst() -> Element? {
    guard !isEmpty else { return nil }
    let element = elements[head]
    head += 1
    if head == elements.count {
      elements.removeAll()
      head = 0
    } else if head >= 32, head * 2 >= elements.count {
      elements.removeFirst(head)
      head = 0
    }
    return element
  }
}

extension FIFO: Sendable where Element: Sendable {}
