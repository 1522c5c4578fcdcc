/// The slots of a registry, in an array: a slot's id is its index with a generation, so that a
/// lookup costs an index and a comparison, never a hash, and an id kept after its slot ended (by a
/// queue, a timer, a task) never reaches the slot that reuses the index.
///
/// Freed indices are reused, last freed first; the array gives back the free entries at its end
/// once fewer than a quarter of its entries are in use, and its storage when it empties, unless
/// that holds at most ``retainedCapacity`` entries: a registry that runs one effect at a time
/// allocates nothing for its slot each time.
struct SlotTable<Element> {
  fileprivate struct Entry {
    var generation: UInt32
    var element: Element?
  }

  private var entries: [Entry] = []
  private var free: [UInt32] = []
  private(set) var count = 0

  init() {}

  /// The id of the entry at `index` in `generation`. Ids start at 1: 0 means "no slot".
  private static func id(index: UInt32, generation: UInt32) -> EffectSlotID {
    (UInt64(generation) << 32) | UInt64(index + 1)
  }

  private static func location(of id: EffectSlotID) -> (index: Int, generation: UInt32)? {
    let low = UInt32(truncatingIfNeeded: id)
    guard low > 0 else { return nil }
    return (Int(low - 1), UInt32(truncatingIfNeeded: id >> 32))
  }

  /// Stores `element` and returns its new id.
  mutating func insert(_ element: Element) -> EffectSlotID {
    count += 1
    if let index = free.popLast() {
      entries[Int(index)].element = element
      return Self.id(index: index, generation: entries[Int(index)].generation)
    }
    entries.append(Entry(generation: generationFloor, element: element))
    return Self.id(index: UInt32(entries.count - 1), generation: generationFloor)
  }

  subscript(id: EffectSlotID) -> Element? {
    guard let index = index(of: id) else { return nil }
    return entries[index].element
  }

  /// Whether the table holds an element with `id`.
  func contains(_ id: EffectSlotID) -> Bool {
    guard let index = index(of: id) else { return false }
    return entries[index].element != nil
  }

  /// Changes the element with `id` in place; returns `nil`, changing nothing, if there is none.
  ///
  /// A method, not a `_modify` accessor: a coroutine the optimizer does not inline allocates its
  /// frame on the heap, at every change made to a slot.
  @discardableResult
  @inline(__always)
  mutating func update<Result>(_ id: EffectSlotID, _ body: (inout Element) -> Result) -> Result? {
    guard let index = index(of: id), entries[index].element != nil else { return nil }
    return body(&entries[index].element!)
  }

  /// The index of the entry `id` names, if it is still that entry's generation.
  private func index(of id: EffectSlotID) -> Int? {
    guard let (index, generation) = Self.location(of: id), index < entries.count,
      entries[index].generation == generation
    else { return nil }
    return index
  }

  /// Removes the element with `id`, returning it.
  mutating func remove(_ id: EffectSlotID) -> Element? {
    guard let index = index(of: id), let element = entries[index].element else { return nil }
    entries[index].element = nil
    entries[index].generation &+= 1
    count -= 1
    if count == 0 {
      for entry in entries { generationFloor = max(generationFloor, entry.generation) }
      entries.removeAll(keepingCapacity: entries.capacity <= Self.retainedCapacity)
      free.removeAll(keepingCapacity: free.capacity <= Self.retainedCapacity)
    } else {
      free.append(UInt32(index))
      if entries.count > 1_024, count * 4 < entries.count { compactTail() }
    }
    return element
  }

  /// Drops free entries at the end of the array, giving their memory back. Indices appended
  /// later start from a generation past every dropped one, so that no kept id matches them.
  private mutating func compactTail() {
    var last = entries.count
    while last > 0, entries[last - 1].element == nil { last -= 1 }
    guard last < entries.count else { return }
    for entry in entries[last...] { generationFloor = max(generationFloor, entry.generation) }
    entries = Array(entries[..<last])
    free.removeAll { Int($0) >= last }
  }

  /// The generation new indices start at: past that of every index dropped so far.
  private var generationFloor: UInt32 = 0

  /// How many entries an emptied table keeps room for.
  static var retainedCapacity: Int { 64 }

  /// The ids and elements, in no particular order.
  var all: [(id: EffectSlotID, element: Element)] {
    entries.indices.compactMap { index in
      entries[index].element.map {
        (Self.id(index: UInt32(index), generation: entries[index].generation), $0)
      }
    }
  }
}

extension EffectSlotID {
  /// The order slots were made in, for reports: the generation first, then the index.
  var order: (UInt32, UInt32) { (UInt32(truncatingIfNeeded: self >> 32), UInt32(truncatingIfNeeded: self)) }
}

extension SlotTable: Sendable where Element: Sendable {}
extension SlotTable.Entry: Sendable where Element: Sendable {}
