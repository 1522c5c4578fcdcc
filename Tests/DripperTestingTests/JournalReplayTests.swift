import Dripper
import DripperTesting
import Synchronization
import Testing

/// A feature whose effects pour back and whose actions `.send` a follow-up: a recorded session
/// holds both, and a replay must not run the effects again.
private struct FieldTimer: Dripper {
  struct State: Equatable, Sendable {
    var ticks = 0
    var notes: [String] = []
  }
  enum Action: Equatable, Sendable {
    case start(Int)
    case tick
    case note(String)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .start(let count):
        return .merge(
          .send(.note("started \(count)")),
          .run { pour in
            for _ in 0..<count { await pour(.tick) }
          })
      case .tick:
        state.ticks += 1
        return .none
      case .note(let text):
        state.notes.append(text)
        return .none
      }
    }
  }
}

extension FieldTimer.Action {
  var journaled: String {
    switch self {
    case .start(let count): "start \(count)"
    case .tick: "tick"
    case .note(let text): "note \(text)"
    }
  }

  init(journaled text: String) throws {
    if text == "tick" {
      self = .tick
    } else if text.hasPrefix("start "), let count = Int(text.dropFirst(6)) {
      self = .start(count)
    } else if text.hasPrefix("note ") {
      self = .note(String(text.dropFirst(5)))
    } else {
      throw JournalError("not an action: \(text)")
    }
  }
}

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

/// Records a session of `FieldTimer` in the field: a Station, two starts, their ticks.
private func recordedSession() async -> (entries: [JournalEntry], state: FieldTimer.State) {
  let journal = Journal.inMemory()
  let station = Station(initialState: FieldTimer.State()) {
    FieldTimer().recording(to: journal, hashing: .dump) { $0.journaled }
  }
  await station.pour(.start(3)).finish()
  await station.pour(.start(2)).finish()
  return (journal.entries, await station.state)
}

@Suite struct JournalReplayTests {
  @Test func aRecordedSessionReplaysAsATestThatGoesOnFromWhereItEnds() async throws {
    let (entries, recorded) = await recordedSession()
    #expect(entries.count == 9)  // start, note, 3 ticks; start, note, 2 ticks
    let station = TestStation(initialState: FieldTimer.State()) { FieldTimer() }
    await station.replay(entries, hashing: .dump) { try FieldTimer.Action(journaled: $0) }
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
      initialState: FieldTimer.State(),
      dripper: {
        FieldTimer()
        Drip<FieldTimer.State, FieldTimer.Action> { state, action in
          if action == .tick { state.ticks += 1 }
          return .none
        }
      }, reporter: failures.reporter)
    await station.replay(entries, hashing: .dump) { try FieldTimer.Action(journaled: $0) }
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
      initialState: FieldTimer.State(), dripper: { FieldTimer() }, reporter: failures.reporter)
    await station.replay(entries) { try FieldTimer.Action(journaled: $0) }
    #expect(failures.all == ["Entry 2 of the journal (explode) could not be decoded: not an action: explode"])
    #expect(station.state.ticks == 1)
  }

  @Test func withoutHashesTheReplayFoldsAndChecksNothing() async {
    let (entries, recorded) = await recordedSession()
    let unhashed = entries.map { JournalEntry(sequence: $0.sequence, action: $0.action, stateHash: nil) }
    let station = TestStation(initialState: FieldTimer.State()) { FieldTimer() }
    await station.replay(unhashed, hashing: .dump) { try FieldTimer.Action(journaled: $0) }
    #expect(station.state == recorded)
    await station.finish()
  }
}
