import Dripper
import DripperTesting
import JournalCrashChild
import Synchronization
import Testing

/// Reads a counter outside its state and action, as a reducer reading the clock would.
private let fieldClock = Atomic<Int>(0)

private struct FieldStamper: Dripper {
  struct State: Equatable, Sendable {
    var stamps: [Int] = []
  }
  enum Action: Equatable, Sendable {
    case stamp
  }

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.stamps.append(fieldClock.add(1, ordering: .relaxed).newValue)
      return .none
    }
  }
}

/// Records a session of `JournaledTimer` in the field: a Station, two starts, their ticks.
private func recordedSession() async -> (entries: [JournalEntry], state: JournaledTimer.State) {
  let journal = Journal.inMemory()
  let station = Station(initialState: JournaledTimer.State()) {
    JournaledTimer().recording(to: journal, hashing: .dump) { $0.journaled }
  }
  await station.pour(.start(3)).finish()
  await station.pour(.start(2)).finish()
  return (journal.entries, await station.state)
}

@Suite struct JournalReplayTests {
  @Test func aRecordedSessionReplaysAsATestThatGoesOnFromWhereItEnds() async throws {
    let (entries, recorded) = await recordedSession()
    #expect(entries.count == 9)  // start, note, 3 ticks; start, note, 2 ticks
    let station = TestStation(initialState: JournaledTimer.State()) { JournaledTimer() }
    await station.replay(entries, hashing: .dump) { try JournaledTimer.Action(journaled: $0) }
    #expect(station.state == recorded)
    // The effects the starts returned were not run: an exhaustive test would report their ticks.
    await station.pour(.tick) { $0.ticks = 6 }
    await station.finish()
  }

  @Test func aReducerThatReadsAGlobalFailsTheReplayWithTwoReductionsDiffed() async throws {
    let journal = Journal.inMemory()
    let recorder = Station(initialState: FieldStamper.State()) {
      FieldStamper().recording(to: journal, hashing: .dump) { _ in "stamp" }
    }
    for _ in 0..<3 { await recorder.pour(.stamp).finish() }
    let failures = FailureLog()
    let station = TestStation(
      initialState: FieldStamper.State(), dripper: { FieldStamper() }, reporter: failures.reporter)
    await station.replay(journal.entries, hashing: .dump) { _ in .stamp }
    let message = try #require(failures.all.first)
    #expect(failures.all.count == 1)
    #expect(
      message.hasPrefix("The replay diverged from the journal at entry 1 (stamp): the state hashes to "))
    #expect(message.contains("the action gives another state each time it is reduced from the same state"))
    // It stops at the entry that diverged.
    #expect(station.state.stamps.count == 1)
  }

  @Test func aReducerChangedSinceTheRecordingFailsWithWhatTheActionDid() async throws {
    let (entries, _) = await recordedSession()
    let failures = FailureLog()
    // Today's feature counts each tick twice; the journal was recorded counting once.
    let station = TestStation(
      initialState: JournaledTimer.State(),
      dripper: {
        JournaledTimer()
        Drip<JournaledTimer.State, JournaledTimer.Action> { state, action in
          if action == .tick { state.ticks += 1 }
          return .none
        }
      }, reporter: failures.reporter)
    await station.replay(entries, hashing: .dump) { try JournaledTimer.Action(journaled: $0) }
    let message = try #require(failures.all.first)
    #expect(message.hasPrefix("The replay diverged from the journal at entry 3 (tick)"))
    #expect(message.contains("the action gives the same state each time"))
    #expect(message.contains("-   ticks: 0") && message.contains("+   ticks: 2"))
    #expect(station.state.ticks == 2)
  }

  @Test func anEntryThatDoesNotDecodeFailsAndStopsTheReplayBeforeIt() async {
    let entries = [
      JournalEntry(sequence: 1, action: "tick", stateHash: nil),
      JournalEntry(sequence: 2, action: "explode", stateHash: nil),
      JournalEntry(sequence: 3, action: "tick", stateHash: nil),
    ]
    let failures = FailureLog()
    let station = TestStation(
      initialState: JournaledTimer.State(), dripper: { JournaledTimer() }, reporter: failures.reporter)
    await station.replay(entries) { try JournaledTimer.Action(journaled: $0) }
    #expect(failures.all == ["Entry 2 of the journal (explode) could not be decoded: not an action: explode"])
    #expect(station.state.ticks == 1)
  }

  @Test func withoutHashesTheReplayFoldsAndChecksNothing() async {
    let (entries, recorded) = await recordedSession()
    let unhashed = entries.map { JournalEntry(sequence: $0.sequence, action: $0.action, stateHash: nil) }
    let station = TestStation(initialState: JournaledTimer.State()) { JournaledTimer() }
    await station.replay(unhashed, hashing: .dump) { try JournaledTimer.Action(journaled: $0) }
    #expect(station.state == recorded)
    await station.finish()
  }
}
