import Synchronization
import Testing

@testable import Dripper

@Suite struct BuiltInValueTests {
  @Test func uniqueIDsRoundTripThroughText() throws {
    var generator = RandomGenerator.seeded(1)
    let id = UniqueID(randomUsing: &generator)
    #expect(UniqueID(uuidString: id.uuidString) == id)
    #expect(UniqueID(uuidString: id.uuidString.lowercased()) == id)
    #expect(id.uuidString.count == 36)
    // Version 4, variant 1.
    #expect(Array(id.uuidString)[14] == "4")
    #expect("89AB".contains(Array(id.uuidString)[19]))
  }

  @Test(arguments: ["", "nope", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5G"])
  func malformedUniqueIDsAreRejected(_ text: String) {
    #expect(UniqueID(uuidString: text) == nil)
  }

  @Test func uniqueIDBytesFollowTheirText() {
    let id = UniqueID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    #expect(id.uuid.0 == 0xE6)
    #expect(id.uuid.15 == 0x5F)
  }

  @Test(arguments: [
    (0.0, "1970-01-01T00:00:00.000Z"),
    (1_795_000_000.25, "2026-11-18T11:06:40.250Z"),
    (951_782_400, "2000-02-29T00:00:00.000Z"),
    (-1, "1969-12-31T23:59:59.000Z"),
  ])
  func timestampsPrintInISO8601(seconds: Double, text: String) {
    #expect(Timestamp(secondsSince1970: seconds).description == text)
  }

  @Test func seededGeneratorsRepeatAndSystemOnesDoNot() {
    let first = (0..<8).map { _ in RandomGenerator.seeded(42).int(in: 0...1_000_000) }
    let second = (0..<8).map { _ in RandomGenerator.seeded(42).int(in: 0...1_000_000) }
    #expect(first == second)
    let system = RandomGenerator.system
    #expect(Set((0..<8).map { _ in system.int(in: 0...Int.max) }).count > 1)
  }
}
