import Testing

@testable import Dripper

/// The mailbox on its own: numbering, batches, and when a pour must schedule the drain task.
@Suite struct MailboxStateTests {
  @Test func poursAreNumberedFromOneInOrder() {
    var mailbox = MailboxState<String>()
    #expect(mailbox.post("a").number == 1)
    #expect(mailbox.post("b").number == 2)
    #expect(mailbox.nextNumber == 3)
  }

  @Test func onlyThePourThatFindsNoDrainScheduledSchedulesOne() {
    var mailbox = MailboxState<String>()
    #expect(mailbox.post("a").scheduleDrain)
    #expect(!mailbox.post("b").scheduleDrain)
    var batch: [String?] = []
    _ = mailbox.take(into: &batch)
    // Taking a batch (an awaiting caller drains) leaves the scheduled task in charge.
    #expect(!mailbox.post("c").scheduleDrain)
  }

  @Test func aBatchHoldsEverythingPendingAndTheNumberOfItsFirstAction() {
    var mailbox = MailboxState<String>()
    for action in ["a", "b", "c"] { _ = mailbox.post(action) }
    var batch: [String?] = []
    #expect(mailbox.take(into: &batch) == 1)
    #expect(batch == ["a", "b", "c"])
    #expect(mailbox.pending.isEmpty)

    batch.removeAll(keepingCapacity: true)
    _ = mailbox.post("d")
    #expect(mailbox.take(into: &batch) == 4)
    #expect(batch == ["d"])
  }

  @Test func anEmptyMailboxGivesNoBatch() {
    var mailbox = MailboxState<String>()
    var batch: [String?] = []
    #expect(mailbox.take(into: &batch) == nil)
    #expect(batch.isEmpty)
    #expect(mailbox.nextNumber == 1)
  }

  @Test func theStorageOfAnEmptiedBatchHoldsTheNextPours() {
    var mailbox = MailboxState<Int>()
    for action in 0..<100 { _ = mailbox.post(action) }
    var batch: [Int?] = []
    _ = mailbox.take(into: &batch)
    batch.removeAll(keepingCapacity: true)
    _ = mailbox.post(100)
    #expect(mailbox.take(into: &batch) == 101)
    #expect(batch == [100])
    // The first batch's room, handed back empty, now waits for the next pours.
    #expect(mailbox.pending.isEmpty && mailbox.pending.capacity >= 100)
  }

  @Test func theDrainTaskEndsOnlyOnAnEmptyMailbox() {
    var mailbox = MailboxState<String>()
    #expect(mailbox.post("a").scheduleDrain)
    let endedWithAnActionWaiting = mailbox.endScheduledDrainIfEmpty()
    #expect(!endedWithAnActionWaiting)
    var batch: [String?] = []
    _ = mailbox.take(into: &batch)
    let endedWhenEmpty = mailbox.endScheduledDrainIfEmpty()
    #expect(endedWhenEmpty)
    // Once the task has ended, the next pour schedules another.
    #expect(mailbox.post("b").scheduleDrain)
  }
}
