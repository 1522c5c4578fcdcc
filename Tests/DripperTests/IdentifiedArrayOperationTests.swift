import Testing

@testable import Dripper

/// Issue 53: the operations swift-identified-collections users (and SwiftUI's `onDelete` and
/// `onMove`) call, with ids kept in step with elements.
@Suite struct IdentifiedArrayOperationTests {
  struct Item: Identifiable, Equatable, Sendable {
    var id: Int
    var name: String
  }

  private var abcd: IdentifiedArrayOf<Item> {
    [Item(id: 1, name: "a"), Item(id: 2, name: "b"), Item(id: 3, name: "c"), Item(id: 4, name: "d")]
  }

  @Test func removeAtOffsetsRemovesThoseElementsAndTheirIDs() {
    var items = abcd
    items.remove(atOffsets: [0, 2])
    #expect(items.map(\.name) == ["b", "d"])
    #expect(items.ids == [2, 4])
    #expect(items.index(id: 4) == 1)
    #expect(items[id: 1] == nil)
    items.remove(atOffsets: [Int]())
    #expect(items.ids == [2, 4])
  }

  @Test func filterReturnsAnIdentifiedArray() {
    let items = abcd
    let even: IdentifiedArrayOf<Item> = items.filter { $0.id.isMultiple(of: 2) }
    #expect(even.ids == [2, 4])
    #expect(even[id: 4]?.name == "d")
    #expect(even.index(id: 4) == 1)
  }

  @Test func updateOrAppendReplacesInPlaceOrAppends() {
    var items = abcd
    #expect(items.updateOrAppend(Item(id: 2, name: "B")) == Item(id: 2, name: "b"))
    #expect(items.map(\.name) == ["a", "B", "c", "d"])
    #expect(items.updateOrAppend(Item(id: 5, name: "e")) == nil)
    #expect(items.ids == [1, 2, 3, 4, 5])
  }

  @Test func updateOrInsertAndUpdateKeepPositions() {
    var items = abcd
    let replaced = items.updateOrInsert(Item(id: 3, name: "C"), at: 0)
    #expect(replaced.originalMember?.name == "c" && replaced.index == 2)
    let inserted = items.updateOrInsert(Item(id: 0, name: "z"), at: 0)
    #expect(inserted.originalMember == nil && inserted.index == 0)
    #expect(items.ids == [0, 1, 2, 3, 4])
    #expect(items.update(Item(id: 1, name: "A"), at: 1).name == "a")
    #expect(items.values.map(\.name) == ["z", "A", "b", "C", "d"])
  }

  @Test func moveAndSortAsListsDo() {
    var items = abcd
    items.move(fromOffsets: [0], toOffset: 4)  // drag the first to the end
    #expect(items.ids == [2, 3, 4, 1])
    items.sort { $0.id < $1.id }
    #expect(items.ids == [1, 2, 3, 4])
    #expect(items.index(id: 4) == 3)
  }
}
