import Foundation
import Testing

@testable import Dripper

@Suite struct IdentifiedArrayTests {
  struct Item: Identifiable, Equatable, Hashable, Codable, Sendable {
    var id: Int
    var name: String
  }

  private var abc: IdentifiedArrayOf<Item> {
    [Item(id: 1, name: "a"), Item(id: 2, name: "b"), Item(id: 3, name: "c")]
  }

  @Test func itIsAnOrderedCollectionWithLookupByID() {
    let items = abc
    #expect(items.count == 3)
    #expect(items.map(\.name) == ["a", "b", "c"])
    #expect(items[1].name == "b")
    #expect(items[id: 3]?.name == "c")
    #expect(items[id: 9] == nil)
    #expect(items.index(id: 2) == 1)
    #expect(items.ids == [1, 2, 3])
  }

  @Test func idsStayUnique() {
    var items = abc
    let appended = items.append(Item(id: 2, name: "duplicate"))
    #expect(!appended)
    #expect(items.count == 3)
    let fromDuplicates = IdentifiedArrayOf<Item>([Item(id: 1, name: "x"), Item(id: 1, name: "y")])
    #expect(fromDuplicates.map(\.name) == ["x"])
  }

  @Test func insertRemoveAndMoveKeepTheIndexRight() {
    var items = abc
    items.insert(Item(id: 0, name: "z"), at: 0)
    #expect(items.ids == [0, 1, 2, 3])
    #expect(items.index(id: 3) == 3)
    #expect(items.remove(id: 1)?.name == "a")
    #expect(items.ids == [0, 2, 3])
    #expect(items.index(id: 3) == 2)
    items.move(fromOffsets: [2], toOffset: 0)
    #expect(items.ids == [3, 0, 2])
    #expect(items[id: 2] == items[2])
    items.removeAll { $0.id == 0 }
    #expect(items.ids == [3, 2])
    #expect(items.index(id: 2) == 1)
  }

  @Test func theIDSubscriptMutatesInPlaceAppendsAndRemoves() {
    var items = abc
    items[id: 2]?.name = "B"
    items[id: 4] = Item(id: 4, name: "d")
    items[id: 1] = nil
    #expect(items.map(\.name) == ["B", "c", "d"])
    #expect(items.index(id: 4) == 2)
  }

  @Test func itIsEquatableHashableAndCodable() throws {
    #expect(abc == abc)
    #expect(Set([abc, abc]).count == 1)
    let data = try JSONEncoder().encode(abc)
    #expect(try JSONDecoder().decode(IdentifiedArrayOf<Item>.self, from: data) == abc)
  }

  @Test func decodingDuplicateIDsFails() {
    let items = [Item(id: 1, name: "a"), Item(id: 1, name: "b")]
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(IdentifiedArrayOf<Item>.self, from: try JSONEncoder().encode(items))
    }
  }
}
