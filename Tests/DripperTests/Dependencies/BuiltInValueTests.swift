import Foundation
import Synchronization
import Testing

@testable import Dripper

@Suite struct BuiltInValueTests {
  /// Issue 53: TCA's `UUID(n)`, and `.incrementing` making them in order.
  @Test func uuidsFromIntegersAreTCAs() {
    #expect(UUID(0).uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(UUID(10).uuidString == "00000000-0000-0000-0000-00000000000A")
    #expect(UUID(0xDEAD_BEEF).uuidString == "00000000-0000-0000-0000-0000DEADBEEF")
    let generate = UUIDGenerator.incrementing
    #expect([generate(), generate(), generate()] == [UUID(0), UUID(1), UUID(2)])
    #expect(UUIDGenerator.constant(UUID(7))() == UUID(7))
    #expect(UUIDGenerator.random() != UUIDGenerator.random())
  }

  /// Issue 53: dates are Foundation's; a constant one is what it says.
  /// Issue 60: `$0.date.now = …` fixes the time, as TCA's SyncUps tests set it.
  @Test func settingNowFixesTheDate() {
    var date = DateGenerator.system
    date.now = Date(timeIntervalSince1970: 1_234_567_890)
    #expect(date.now == Date(timeIntervalSince1970: 1_234_567_890))
    #expect(date() == Date(timeIntervalSince1970: 1_234_567_890))
    var values = DependencyValues()
    values.date.now = Date(timeIntervalSince1970: 42)
    #expect(values.date.now == Date(timeIntervalSince1970: 42))
  }

  @Test func datesAreFoundations() {
    let date = Date(timeIntervalSince1970: 1_234_567_890)
    #expect(DateGenerator.constant(date).now == date)
    #expect(DateGenerator.constant(date)() == date)
    #expect(abs(DateGenerator.system.now.timeIntervalSinceNow) < 60)
  }

  @Test(arguments: [
    (0.0, "1970-01-01T00:00:00.000Z"),
    (1_795_000_000.25, "2026-11-18T11:06:40.250Z"),
    (951_782_400, "2000-02-29T00:00:00.000Z"),
    (-1, "1969-12-31T23:59:59.000Z"),
  ])
  func datesDumpInISO8601(seconds: Double, text: String) {
    #expect(Dump.line(Date(timeIntervalSince1970: seconds)) == "Date(\(text))")
  }

  @Test func foundationValuesDumpAsValues() throws {
    #expect(Dump.line(URL(string: "https://example.com/a?b=1")!) == "URL(https://example.com/a?b=1)")
    #expect(Dump.line(UUID(7)) == "UUID(00000000-0000-0000-0000-000000000007)")
    #expect(Dump.line(Data([1, 2, 255])) == "Data(3 bytes: 0102ff)")
    #expect(Dump.line(Data(count: 17)) == "Data(17 bytes)")
    #expect(Dump.line(Decimal(string: "1.25")!) == "1.25")  // a number, as swift-custom-dump prints it
    #expect(Dump.line(Duration.milliseconds(1500)) == "1.5 seconds")
    #expect(Dump.line([URL(string: "file:///tmp/a")!]) == "[[0]: URL(file:///tmp/a)]")
  }

  @Test func seededGeneratorsRepeatAndSystemOnesDoNot() {
    let first = (0..<8).map { _ in RandomGenerator.seeded(42).int(in: 0...1_000_000) }
    let second = (0..<8).map { _ in RandomGenerator.seeded(42).int(in: 0...1_000_000) }
    #expect(first == second)
    let system = RandomGenerator.system
    #expect(Set((0..<8).map { _ in system.int(in: 0...Int.max) }).count > 1)
  }
}
