import ChildProcesses
import JournalCrashChild
import Synchronization
import Testing

@testable import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Pours `count` ledger actions, each the next of a run, and waits for them.
private func pourRun(_ station: StationOf<Ledger>, _ count: Int) async {
  let start = await station.count
  for sequence in start + 1...start + count { station.pour(.add(Ledger.amount(sequence))) }
  await station.pour(.add(Ledger.amount(start + count + 1))).finish()
}

@Suite struct DurableJournalTests {
  @Test func aStationStartsFromItsSnapshotAndTheJournalsTail() async throws {
    let scratch = ScratchDirectory()
    let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 10)
    do {
      let station = try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
      #expect(durable.recovery == JournalRecovery(snapshotSequence: nil, replayed: 0, lastSequence: 0))
      await pourRun(station, 24)  // 25 actions: snapshots at 10 and 20, five entries after
      #expect(await station.state == Ledger.State.after(25))
      try durable.close()
    }
    #expect(scratch.text("snapshot").hasPrefix("dripper-snapshot 1 20 "))
    #expect(try Journal.read(at: scratch.file("journal")).entries.map(\.sequence) == [21, 22, 23, 24, 25])

    let again = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 10)
    let station = try Station.recovering(from: again, initialState: Ledger.State()) { Ledger() }
    #expect(await station.state == Ledger.State.after(25))
    #expect(again.recovery == JournalRecovery(snapshotSequence: 20, replayed: 5, lastSequence: 25))
    await station.pour(.add(Ledger.amount(26))).finish()
    #expect(try Journal.read(at: scratch.file("journal")).entries.last?.sequence == 26)
  }

  @Test func entriesAlreadyInTheSnapshotAreSkipped() async throws {
    // A crash between writing a snapshot and cutting the journal back leaves both.
    let scratch = ScratchDirectory()
    var journal = JournalLine.header
    for sequence in 1...12 {
      JournalLine.append(
        JournalEntry(sequence: UInt64(sequence), action: "add \(Ledger.amount(sequence))", stateHash: nil),
        to: &journal)
    }
    scratch.write(journal, to: "journal")
    let ten = Ledger.State.after(10)
    #expect(
      DurableJournal<Ledger.State, Ledger.Action>.writeSnapshot(
        "\(ten.count) \(ten.total)", sequence: 10, to: scratch.file("snapshot")) == nil)

    let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 100)
    let station = try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
    #expect(await station.state == Ledger.State.after(12))
    #expect(durable.recovery == JournalRecovery(snapshotSequence: 10, replayed: 2, lastSequence: 12))
  }

  @Test func aJournalThatStartsAfterAGapIsRefusedAndLeftAlone() throws {
    let scratch = ScratchDirectory()
    var journal = JournalLine.header
    JournalLine.append(JournalEntry(sequence: 4, action: "add 5", stateHash: nil), to: &journal)
    scratch.write(journal, to: "journal")
    let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 100)
    #expect(throws: JournalError("\(scratch.file("journal")): entry 4 follows 0: entries 1…3 are missing")) {
      try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
    }
    #expect(scratch.contents("journal") == journal)
  }

  @Test func aCorruptSnapshotIsAnErrorAndChangesNothing() throws {
    let scratch = ScratchDirectory()
    scratch.write(Array("dripper-snapshot 1 10 0000000000000000\n10 55".utf8), to: "snapshot")
    let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 100)
    #expect(throws: JournalError("\(scratch.file("snapshot")) is not a Dripper snapshot, or is corrupt")) {
      try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
    }
    #expect(scratch.contents("journal") == nil)
  }

  @Test func anEntryThatDoesNotDecodeIsAnError() throws {
    let scratch = ScratchDirectory()
    var journal = JournalLine.header
    JournalLine.append(JournalEntry(sequence: 1, action: "subtract 5", stateHash: nil), to: &journal)
    scratch.write(journal, to: "journal")
    let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 100)
    #expect(
      throws: JournalError("entry 1 (subtract 5) could not be decoded: not a ledger action: subtract 5")
    ) {
      try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
    }
  }

  @Test func aTornLastLineIsIgnoredAndSaid() async throws {
    let scratch = ScratchDirectory()
    do {
      let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 100)
      let station = try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
      await pourRun(station, 2)
      try durable.close()
    }
    scratch.write(Array("4 - add".utf8), to: "journal", appending: true)
    let durable = Ledger.journal(at: scratch.path, durability: .everyAction, snapshotEvery: 100)
    let diagnostics = Lock<[String]>([])
    let station = try Station.recovering(from: durable, initialState: Ledger.State()) {
      Ledger()
    } withDependencies: {
      $0.diagnosticReporter = { diagnostic in diagnostics.withLock { $0.append(diagnostic.message) } }
    }
    #expect(await station.state == Ledger.State.after(3))
    let said =
      "\(scratch.file("journal")): ignored 7 bytes after its last whole line: a write a crash cut short"
    #expect(durable.recovery?.tornTail == said)
    #expect(diagnostics.withLock { $0 } == [said])
  }

  @Test func recoveryTimeGrowsWithTheTailNotTheHistory() async throws {
    // The same tail of 50 entries after histories of n, 2n and 4n actions.
    var folders: [Int: ScratchDirectory] = [:]
    for history in [2_000, 4_000, 8_000].map(scaled) {
      let scratch = ScratchDirectory()
      let durable = Ledger.journal(
        at: scratch.path, durability: .everyActions(10_000), snapshotEvery: history)
      let station = try Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
      await pourRun(station, history + 49)
      try durable.close()
      folders[history] = scratch
    }
    await expectIndependentOfSize("recovering after a long history", n: 2_000) { history in
      let durable = Ledger.journal(
        at: folders[history]!.path, durability: .everyActions(10_000), snapshotEvery: history)
      let start = monotonicNanoseconds()
      let station = try? Station.recovering(from: durable, initialState: Ledger.State()) { Ledger() }
      let elapsed = monotonicNanoseconds() - start
      #expect(durable.recovery?.replayed == 50)
      try? durable.close()
      withExtendedLifetime(station) {}
      return elapsed
    }
  }

  #if os(Linux)
    /// The crash test: a child process pours actions into a durable ledger and is killed at random
    /// moments (mid-write, mid-snapshot, mid-compaction); each recovery must give exactly the state
    /// of the journal's fold (the ledger's state after its count of actions), and with
    /// `everyAction` must keep every action the child saw reduced.
    @Test(arguments: ["action", "64"])
    func killedAtRandomMomentsTheLedgerRecoversWhatItsJournalHolds(durability: String) throws {
      let scratch = ScratchDirectory()
      var generator = SystemRandomNumberGenerator()
      var lastSeenReduced = 0
      for _ in 0..<scaled(30) {
        guard let child = ChildProcess("JournalCrashChild", arguments: [scratch.path, durability, "5"]) else {
          Issue.record("could not start JournalCrashChild beside the tests")
          return
        }
        // Let it reduce a few actions, then kill it somewhere in the middle of its work.
        _ = child.readLines(waitingUpTo: 5_000).last
        usleep(UInt32.random(in: 0..<30_000, using: &generator))
        child.killAndWait()
        let reported = child.readLines(waitingUpTo: 0).compactMap(Int.init).max()
        lastSeenReduced = max(lastSeenReduced, reported ?? 0)

        let durable = Ledger.journal(
          at: scratch.path, durability: durability == "action" ? .everyAction : .everyActions(64),
          snapshotEvery: 5)
        let recovered = try Ledger().recoveredState(from: durable)
        #expect(recovered == Ledger.State.after(recovered.count), "the recovered state is the journal's fold")
        if durability == "action" {
          #expect(recovered.count >= lastSeenReduced, "an action the child saw reduced was lost")
        }
        try durable.close()
      }
    }
  #endif
}

extension Ledger {
  /// The state a Station would recover from `durable`, the Station released at once.
  func recoveredState(from durable: DurableJournal<State, Action>) throws -> State {
    let (state, _) = try durable.recover(initialState: { State() }, dripper: self, prepare: { _ in })
    return state
  }
}
