/// The slots of a registry, in an array: a slot's id is its index with a generation, so that a
/// lookup costs an index and a comparison, never a hash, and an id kept after its slot ended (by a
/// queue, a timer, a task) never reaches the slot that reuses the index.
///
/// Freed indices are reused, last freed first. The generations sit in an array of their own, of a
/// trivial type, and say whether an entry is in use: odd while it is, even while it is free (each
/// insertion and each removal adds one). Checking an id then reads one number and never looks at
/// the element: testing an optional element for `nil` copies it, and the registry's slots hold
/// keys and a task, which the copy retains and releases. Elements are changed in place and moved
/// out when removed. Once fewer than a quarter of the entries are in use, the arrays give back the
/// free entries at their end (looking for them at most once per quarter of the entries removed);
/// they give back their storage when the table empties, unless it holds at most
/// ``retainedCapacity`` entries: a registry that runs one effect at a time allocates nothing, and
/// does no work beyond the slot itself, each time.
struct SlotTable<Element> {
  private var generations: [UInt32] = []
  private var elements: [Element?] = []
  private var free: [UInt32] = []
  private(set) var count = 0
  /// How many more removals the table waits for before it looks for a free tail to drop again. A
  /// look costs time in proportion to the arrays (it scans the tail, copies what it keeps and
  /// filters the free list), so it comes at most once per quarter of them removed: made at every
  /// removal, it made ending slots newest first, in a table under a quarter full, quadratic
  /// (`ScaleTests`: 2.2 s for 20,000 slots, 17× that for 80,000).
  private var removalsBeforeCompaction = 0
  /// Even, and at least the generation of every index dropped so far: new indices start past it.
  private var generationFloor: UInt32 = 0

  init() {}

  /// How many entries the arrays hold, in use or free: what compaction gives back, for tests.
  var entryCount: Int { elements.count }

  /// How many entries an emptied table keeps room for.
  static var retainedCapacity: Int { 64 }

  /// The id of the entry at `index` in `generation`. Ids start at 1: 0 means "no slot".
  private static func id(index: Int, generation: UInt32) -> EffectSlotID {
    (UInt64(generation) << 32) | UInt64(index + 1)
  }

  /// The index of the entry `id` names, if it is still that entry's generation: then the entry is
  /// in use, since ids are only made of odd generations.
  @inline(__always)
  private func index(of id: EffectSlotID) -> Int? {
    let low = UInt32(truncatingIfNeeded: id)
    guard low > 0 else { return nil }
    let index = Int(low - 1)
    guard index < generations.count, generations[index] == UInt32(truncatingIfNeeded: id >> 32) else {
      return nil
    }
    return index
  }

  /// Whether the entry at `index` holds an element: its generation is odd.
  private func isInUse(_ index: Int) -> Bool {
    generations[index] & 1 == 1
  }

  /// Stores `element` and returns its new id.
  mutating func insert(_ element: consuming Element) -> EffectSlotID {
    count += 1
    if let index = free.popLast().map(Int.init) {
      elements[index] = element
      generations[index] &+= 1
      return Self.id(index: index, generation: generations[index])
    }
    generations.append(generationFloor &+ 1)
    elements.append(element)
    return Self.id(index: elements.count - 1, generation: generationFloor &+ 1)
  }

  /// A copy of the element with `id`: for inspection. The registry's hot paths use
  /// ``update(_:_:)``, which copies nothing.
  subscript(id: EffectSlotID) -> Element? {
    guard let index = index(of: id) else { return nil }
    return elements[index]
  }

  /// Whether the table holds an element with `id`.
  func contains(_ id: EffectSlotID) -> Bool {
    index(of: id) != nil
  }

  /// Changes (or reads) the element with `id` in place; returns `nil`, calling nothing, if there
  /// is none.
  ///
  /// A method, not a `_modify` accessor: a coroutine the optimizer does not inline allocates its
  /// frame on the heap, at every change made to a slot.
  @discardableResult
  @inline(__always)
  mutating func update<Result>(_ id: EffectSlotID, _ body: (inout Element) -> Result) -> Result? {
    guard let index = index(of: id) else { return nil }
    return body(&elements[index]!)
  }

  /// Removes the element with `id`, moving it out.
  mutating func remove(_ id: EffectSlotID) -> Element? {
    guard let index = index(of: id) else { return nil }
    let element = elements[index].take()
    generations[index] &+= 1
    count -= 1
    free.append(UInt32(index))
    if count == 0 {
      if elements.count > Self.retainedCapacity { release() }
    } else if elements.count > 1_024, count * 4 < elements.count {
      removalsBeforeCompaction -= 1
      if removalsBeforeCompaction <= 0 {
        compactTail()
        removalsBeforeCompaction = elements.count / 4
      }
    }
    return element
  }

  /// Gives back the storage of an empty table. Indices appended later start from a generation past
  /// every dropped one, so that no kept id matches them.
  private mutating func release() {
    generationFloor = max(generationFloor, generations.max() ?? 0)
    generations = []
    elements = []
    free = []
    removalsBeforeCompaction = 0
  }

  /// Drops free entries at the end of the arrays, giving their memory back, as ``release()`` does.
  private mutating func compactTail() {
    var last = elements.count
    while last > 0, !isInUse(last - 1) { last -= 1 }
    guard last < elements.count else { return }
    generationFloor = max(generationFloor, generations[last...].max() ?? 0)
    generations = Array(generations[..<last])
    elements = Array(elements[..<last])
    free.removeAll { Int($0) >= last }
  }

  /// The ids and elements, in no particular order.
  var all: [(id: EffectSlotID, element: Element)] {
    elements.indices.compactMap { index in
      isInUse(index) ? (Self.id(index: index, generation: generations[index]), elements[index]!) : nil
    }
  }
}

extension EffectSlotID {
  /// The order slots were made in, for reports: the generation first, then the index.
  var order: (UInt32, UInt32) { (UInt32(truncatingIfNeeded: self >> 32), UInt32(truncatingIfNeeded: self)) }
}

extension SlotTable: Sendable where Element: Sendable {}
