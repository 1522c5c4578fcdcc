import Foundation
import JournalCrashChild
import Synchronization
import Testing

@testable import Dripper

/// A reducer that reads a global value instead of a dependency: what a replay must find.
private let wallClock = Atomic<Int>(0)

private struct Stamper: Dripper {
  struct State: Equatable, Sendable {
    var stamps: [Int] = []
    var count = 0
  }
  enum Action: Equatable, Sendable {
    case stamp
    case count
  }
  /// Whether `count` adds 2 instead of 1: the reducer changed since the recording.
  var countsTwice = false

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .stamp: state.stamps.append(wallClock.add(1, ordering: .relaxed).newValue)
      case .count: state.count += countsTwice ? 2 : 1
      }
      return .none
    }
  }
}

@Suite struct JournalTests {
  @Test func aRecordingStationJournalsEveryActionInTheOrderItReducesThem() async {
    let journal = Journal.inMemory()
    let station = Station(initialState: JournaledTimer.State()) {
      JournaledTimer().recording(to: journal, hashing: .dump) { $0.journaled }
    }
    await station.pour(.start(3)).finish()
    await station.pour(.note("done")).finish()

    let entries = journal.entries
    #expect(entries.map(\.action) == ["start 3", "note started", "tick", "tick", "tick", "note done"])
    #expect(entries.map(\.sequence) == [1, 2, 3, 4, 5, 6])
    #expect(journal.lastSequence == 6)
    let final = await station.state
    #expect(entries.last?.stateHash == StateHash<JournaledTimer.State>.dump(final))
  }

  @Test func aStationOfCommitsJournalsEachByItsNameAndReplaysThroughANameTable() async {
    struct Lamp: Equatable, Sendable {
      var isOn = false
      var level = 0
    }
    let journal = Journal.inMemory()
    let station = Station(initialState: Lamp()) {
      Committing<Lamp>().recording(to: journal, hashing: .dump)
    }
    station.commit("on") { $0.isOn = true }
    station.commit("brighter") { $0.level += 1 }
    await station.emit(Lamp(isOn: true, level: 5)).finish()
    #expect(journal.entries.map(\.action) == ["on", "brighter", "emit"])

    // The names, back to commits: an `emit` cannot be, its state is not in the journal.
    let table: [String: Commit<Lamp>] = [
      "on": Commit("on") { $0.isOn = true }, "brighter": Commit("brighter") { $0.level += 1 },
    ]
    let (state, report) = Committing<Lamp>().replay(journal.entries, from: Lamp(), hashing: .dump) { name in
      guard let commit = table[name] else { throw JournalError("no commit named \(name)") }
      return commit
    }
    #expect(state == Lamp(isOn: true, level: 1))
    #expect(report.replayed == 2)
    #expect(report.failure?.message == "entry 3 (emit) could not be decoded: no commit named emit")
  }

  @Test func replayingAJournalGivesTheSameStateWithNoEffectRun() async {
    let journal = Journal.inMemory()
    let station = Station(initialState: JournaledTimer.State()) {
      JournaledTimer().recording(to: journal, hashing: .dump) { $0.journaled }
    }
    await station.pour(.start(5)).finish()
    let recorded = await station.state

    // The `start` in the journal returns an effect that would pour five more ticks: not run.
    let (state, report) = JournaledTimer().replay(
      journal.entries, from: JournaledTimer.State(), hashing: .dump
    ) {
      try JournaledTimer.Action(journaled: $0)
    }
    #expect(state == recorded)
    #expect(report == ReplayReport(replayed: 7, lastSequence: 7, divergence: nil, failure: nil))
  }

  @Test func anActionThatDoesNotDecodeStopsTheReplayBeforeIt() {
    let entries = [
      JournalEntry(sequence: 1, action: "tick", stateHash: nil),
      JournalEntry(sequence: 2, action: "jump", stateHash: nil),
      JournalEntry(sequence: 3, action: "tick", stateHash: nil),
    ]
    let (state, report) = JournaledTimer().replay(entries, from: JournaledTimer.State()) {
      try JournaledTimer.Action(journaled: $0)
    }
    #expect(state.ticks == 1)
    #expect(report.replayed == 1)
    #expect(report.failure?.message == "entry 2 (jump) could not be decoded: not an action: jump")
  }

  @Test func aReducerThatReadsAGlobalIsFoundWithADiffOfTwoReductions() async {
    let journal = Journal.inMemory()
    let station = Station(initialState: Stamper.State()) {
      Stamper().recording(to: journal, hashing: .dump) { "\($0)" }
    }
    await station.pour(.count).finish()
    await station.pour(.stamp).finish()
    await station.pour(.count).finish()

    let (_, report) = Stamper().replay(journal.entries, from: Stamper.State(), hashing: .dump) {
      $0 == "stamp" ? .stamp : .count
    }
    let divergence = try! #require(report.divergence)
    #expect(divergence.sequence == 2)
    #expect(divergence.action == "stamp")
    #expect(divergence.explanation.first?.contains("gives another state each time") == true)
    #expect(
      divergence.explanation.contains { $0.hasPrefix("-") }
        && divergence.explanation.contains { $0.hasPrefix("+") })
    // The replay goes on past it.
    #expect(report.replayed == 3)
  }

  @Test func aReducerChangedSinceTheRecordingIsFoundWithWhatTheActionDid() async {
    let journal = Journal.inMemory()
    let station = Station(initialState: Stamper.State()) {
      Stamper().recording(to: journal, hashing: .dump) { "\($0)" }
    }
    await station.pour(.count).finish()

    let (state, report) = Stamper(countsTwice: true).replay(
      journal.entries, from: Stamper.State(), hashing: .dump
    ) { _ in .count }
    #expect(state.count == 2)
    let divergence = try! #require(report.divergence)
    #expect(divergence.sequence == 1)
    #expect(divergence.explanation.first?.contains("gives the same state each time") == true)
    #expect(
      divergence.explanation.contains("-   count: 0")
        || divergence.explanation.contains { $0.contains("count: 0") })
    #expect(divergence.description.hasPrefix("entry 1 (count): the state hashes to "))
  }

  @Test func withoutHashesAReplayChecksNothing() async {
    let journal = Journal.inMemory()
    let station = Station(initialState: Stamper.State()) {
      Stamper().recording(to: journal) { "\($0)" }
    }
    await station.pour(.stamp).finish()
    #expect(journal.entries.map(\.stateHash) == [nil])
    let (_, report) = Stamper().replay(journal.entries, from: Stamper.State(), hashing: .dump) { _ in .stamp }
    #expect(report.divergence == nil)
  }

  @Test func theDumpHashIsTheSameForEqualStatesAndDiffersForOthers() {
    let hash = StateHash<JournaledTimer.State>.dump
    #expect(
      hash(JournaledTimer.State(ticks: 1, log: ["a"])) == hash(JournaledTimer.State(ticks: 1, log: ["a"])))
    #expect(
      hash(JournaledTimer.State(ticks: 1, log: ["a"])) != hash(JournaledTimer.State(ticks: 2, log: ["a"])))
    #expect(
      hash(JournaledTimer.State(ticks: 1, log: ["a"]))
        != hash(JournaledTimer.State(ticks: 1, log: ["a", ""])))
  }

  @Test func listAndPresentationActionsAreCodableWhenWhatTheyHoldIs() throws {
    // What a feature's `Codable` action needs to be written to a journal with a JSON encoder.
    enum ChildAction: Codable, Equatable, Sendable {
      case rename(String)
      case toggle
    }
    let rows: [IdentifiedAction<Int, ChildAction>] = [
      .element(id: 3, action: .rename("Oat milk")), .element(id: -1, action: .toggle),
    ]
    let presented: [PresentationAction<ChildAction>] = [.presented(.toggle), .dismiss]
    for action in rows {
      let decoded = try JSONDecoder().decode(
        IdentifiedAction<Int, ChildAction>.self, from: JSONEncoder().encode(action))
      guard case .element(let id, let child) = decoded, case .element(let expectedID, let expected) = action
      else {
        Issue.record("not an element")
        continue
      }
      #expect(id == expectedID && child == expected)
    }
    for action in presented {
      #expect(
        try JSONDecoder().decode(PresentationAction<ChildAction>.self, from: JSONEncoder().encode(action))
          == action)
    }
  }

  @Test func numbersAreWrittenAsTheStandardLibraryWritesThem() {
    var generator = SystemRandomNumberGenerator()
    let values: [UInt64] =
      [0, 1, 9, 10, 15, 16, 255, 0xdead_beef, .max, 1 << 63] + (0..<200).map { _ in generator.next() }
    for value in values {
      let fields = JournalEntry(sequence: max(value, 1), action: "x", stateHash: value).description.split(
        separator: " ")
      let hex = String(value, radix: 16)
      #expect(fields[0] == "\(max(value, 1))")
      #expect(fields[1] == String(repeating: "0", count: 16 - hex.count) + hex)
    }
  }

  @Test func anEntryIsOneLineWhateverItsActionHolds() {
    let actions = [
      "plain", "", "two\nlines", "back\\slash\\n", "carriage\r\nreturn", "ünïcödé 🎉", "  spaced  ",
    ]
    for (index, action) in actions.enumerated() {
      let entry = JournalEntry(
        sequence: UInt64(index + 1), action: action, stateHash: index.isMultiple(of: 2) ? 42 : nil)
      let line = entry.description
      #expect(!line.contains("\n") && !line.contains("\r"))
      let decoded = JournalLine.decode(Array(line.utf8)[...])
      #expect(decoded == .success(entry))
    }
  }

  @Test func aLineWithAnyByteChangedIsNotTakenForAnEntry() {
    let line = Array(JournalEntry(sequence: 12, action: "add 5", stateHash: 7).description.utf8)
    for index in line.indices {
      var damaged = line
      damaged[index] = damaged[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
      if case .success = JournalLine.decode(damaged[...]) {
        Issue.record(
          "byte \(index) changed and the line still decoded: \(String(decoding: damaged, as: UTF8.self))")
      }
    }
    #expect(
      JournalLine.decode(line.dropLast(3))
        != .success(JournalEntry(sequence: 12, action: "add 5", stateHash: 7)))
  }
}
