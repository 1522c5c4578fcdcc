import Testing

@testable import Dripper

/// The mailbox on its own: numbering, batches, and when a pour must schedule the drain task.
@Suite struct MailboxTests {
  @Test func poursAreNumberedFromOneInOrder() {
    var mailbox = Mailbox<String>()
    #expect(mailbox.enqueue("a").sequence == 1)
    #expect(mailbox.enqueue("b").sequence == 2)
    #expect(mailbox.nextSequence == 3)
  }

  @Test func onlyThePourThatFindsNoDrainScheduledSchedulesOne() {
    var mailbox = Mailbox<String>()
    #expect(mailbox.enqueue("a").scheduleDrain)
    #expect(!mailbox.enqueue("b").scheduleDrain)
    var batch: [String?] = []
    _ = mailbox.take(into: &batch)
    // Taking a batch (an awaiting caller drains) leaves the scheduled task in charge.
    #expect(!mailbox.enqueue("c").scheduleDrain)
  }

  @Test func aBatchHoldsEverythingPendingAndTheNumberOfItsFirstAction() {
    var mailbox = Mailbox<String>()
    for action in ["a", "b", "c"] { _ = mailbox.enqueue(action) }
    var batch: [String?] = []
    #expect(mailbox.take(into: &batch) == 1)
    #expect(batch == ["a", "b", "c"])
    #expect(mailbox.pending.isEmpty)

    batch.removeAll(keepingCapacity: true)
    _ = mailbox.enqueue("d")
    #expect(mailbox.take(into: &batch) == 4)
    #expect(batch == ["d"])
  }

  @Test func anEmptyMailboxGivesNoBatch() {
    var mailbox = Mailbox<String>()
    var batch: [String?] = []
    #expect(mailbox.take(into: &batch) == nil)
    #expect(batch.isEmpty)
    #expect(mailbox.nextSequence == 1)
  }

  @Test func theStorageOfAnEmptiedBatchHoldsTheNextPours() {
    var mailbox = Mailbox<Int>()
    for action in 0..<100 { _ = mailbox.enqueue(action) }
    var batch: [Int?] = []
    _ = mailbox.take(into: &batch)
    batch.removeAll(keepingCapacity: true)
    _ = mailbox.enqueue(100)
    #expect(mailbox.take(into: &batch) == 101)
    #expect(batch == [100])
    // The first batch's room, handed back empty, now waits for the next pours.
    #expect(mailbox.pending.isEmpty && mailbox.pending.capacity >= 100)
  }

  @Test func theDrainTaskEndsOnlyOnAnEmptyMailbox() {
    var mailbox = Mailbox<String>()
    #expect(mailbox.enqueue("a").scheduleDrain)
    let endedWithAnActionWaiting = mailbox.endScheduledDrainIfEmpty()
    #expect(!endedWithAnActionWaiting)
    var batch: [String?] = []
    _ = mailbox.take(into: &batch)
    let endedWhenEmpty = mailbox.endScheduledDrainIfEmpty()
    #expect(endedWhenEmpty)
    // Once the task has ended, the next pour schedules another.
    #expect(mailbox.enqueue("b").scheduleDrain)
  }
}
