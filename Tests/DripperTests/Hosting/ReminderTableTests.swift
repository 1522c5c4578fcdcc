import Foundation
import Testing

@testable import Dripper

/// A key's reminders, alone.
@Suite struct ReminderTableTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// A reminder set again and again under its id, with the same deadline, is one reminder: it
  /// fires once, and the heap keeps no more than a bounded share of stale entries. Before, each
  /// setting looked live, and past twice as many entries as reminders every setting filtered the
  /// whole heap (a benchmark of 10,000 reminders set five times took minutes).
  @Test func aReminderSetAgainIsOneReminder() {
    var table = ReminderTable<Int>()
    for _ in 0..<5 {
      for number in 0..<1_000 {
        table.set(
          "\(number)", PendingReminder(deadline: start.addingTimeInterval(Double(number)), action: number))
      }
    }
    #expect(table.count == 1_000)
    #expect(table.entriesInHeap <= 2 * table.count + 1)
    let due = table.takeDue(at: start.addingTimeInterval(10_000))
    #expect(due.map(\.reminder.action) == Array(0..<1_000))
    #expect(table.isEmpty)
    #expect(table.earliest == nil)
  }

  /// A reminder moved later fires at its new deadline, not its old one; one cancelled never fires.
  @Test func aMovedOrCancelledReminderFiresWhereItIsNow() {
    var table = ReminderTable<String>()
    table.set("x", PendingReminder(deadline: start.addingTimeInterval(100), action: "first"))
    table.set("y", PendingReminder(deadline: start.addingTimeInterval(150), action: "y"))
    table.set("x", PendingReminder(deadline: start.addingTimeInterval(200), action: "moved"))
    #expect(table.earliest == start.addingTimeInterval(150))
    table.cancel("y")
    #expect(table.earliest == start.addingTimeInterval(200))
    #expect(table.takeDue(at: start.addingTimeInterval(199)).isEmpty)
    #expect(table.takeDue(at: start.addingTimeInterval(200)).map(\.reminder.action) == ["moved"])
  }
}
