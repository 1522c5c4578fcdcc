import Foundation
import Testing

@testable import Dripper

/// Moving elements is not changing ids: the standard in-place algorithms keep each id with its
/// element (issue 14).
@Suite struct IdentifiedArrayMoveTests {
  struct Item: Identifiable, Comparable, Sendable {
    let id: Int
    var rank: Int
    static func < (lhs: Item, rhs: Item) -> Bool { lhs.rank < rhs.rank }
  }

  func items(_ ranks: [Int]) -> IdentifiedArrayOf<Item> {
    IdentifiedArray(ranks.enumerated().map { Item(id: $0.offset, rank: $0.element) })
  }

  /// Each id finds its own element, at the position the element is at.
  func expectConsistent(_ array: IdentifiedArrayOf<Item>, sourceLocation: SourceLocation = #_sourceLocation) {
    for (position, item) in array.enumerated() {
      #expect(array.index(id: item.id) == position, sourceLocation: sourceLocation)
      #expect(array[id: item.id]?.rank == item.rank, sourceLocation: sourceLocation)
    }
    #expect(array.ids == array.map(\.id), sourceLocation: sourceLocation)
  }

  /// Each algorithm runs in a process of its own: one that traps (as they all did when an
  /// element's move counted as a change of id) fails its test, not the run.
  @Test(arguments: ["reverse", "swapAt", "sort", "shuffle", "partition"])
  func movingElementsKeepsIDsWithThem(algorithm: String) async {
    await #expect(processExitsWith: .success) { [algorithm] in
      var array = IdentifiedArray((0..<100).map { Item(id: $0, rank: ($0 * 37) % 100) })
      switch algorithm {
      case "reverse": array.reverse()
      case "swapAt": array.swapAt(0, 99)
      case "sort": array.sort()
      case "shuffle":
        var generator = SystemRandomNumberGenerator()
        array.shuffle(using: &generator)
      default: _ = array.partition { $0.rank >= 50 }
      }
      for (position, item) in array.enumerated() {
        guard array.index(id: item.id) == position, array[id: item.id]?.rank == item.rank else { exit(1) }
      }
      guard array.ids == array.map(\.id) else { exit(2) }
      if algorithm == "sort", array.map(\.rank) != Array(0..<100) { exit(3) }
    }
  }

  @Test func uniqueElementsAreTakenAsTheyAre() {
    let array = IdentifiedArray(uniqueElements: (0..<3).map { Item(id: $0, rank: $0) })
    #expect(array.ids == [0, 1, 2])
  }

  /// As TCA's: duplicates given as unique are a programmer error, not data to drop silently.
  @Test func uniqueElementsWithADuplicateIDStopTheProgram() async {
    await #expect(processExitsWith: .failure) {
      _ = IdentifiedArray(uniqueElements: [Item(id: 1, rank: 0), Item(id: 1, rank: 1)])
    }
  }

  @Test func changingAnElementThroughItsIDKeepsTheOthersInPlace() {
    var array = items([3, 1, 2])
    array[id: 0]?.rank = 10
    #expect(array.map(\.rank) == [10, 1, 2])
    expectConsistent(array)
    array[id: 1] = nil
    #expect(array.map(\.id) == [0, 2])
    expectConsistent(array)
  }
}
