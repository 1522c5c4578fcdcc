import Testing

@testable import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A counter whose actions journal as numbers.
private struct JournaledTally: Dripper {
  struct State: Equatable, Sendable { var total = 0 }
  enum Action: Equatable, Sendable { case add(Int) }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount): state.total += amount
      }
      return .none
    }
  }
}

private func tallyStation(_ journal: Journal) -> StationOf<JournaledTally> {
  Station(initialState: JournaledTally.State()) {
    JournaledTally().recording(to: journal) { action in
      switch action {
      case .add(let amount): "\(amount)"
      }
    }
  }
}

private func mode(of path: String) -> mode_t {
  var status = stat()
  _ = lstat(path, &status)
  return status.st_mode & 0o7777
}

@Suite struct JournalFileTests {
  @Test(arguments: ["memory", "file"])
  func recordingCostsTheSameWhateverTheJournalAlreadyHolds(sink: String) async throws {
    // Appends never copy what the journal holds (memory: fixed chunks; a file: batches taken out
    // by the writer), so n, 2n and 4n actions cost in proportion.
    let scratch = ScratchDirectory()
    var number = 0
    await expectLinear("recording to a journal in \(sink)", n: 20_000) { n in
      number += 1
      let journal: Journal
      do {
        journal =
          sink == "memory"
          ? Journal.inMemory()
          : try Journal.file(at: scratch.file("\(number).journal"), durability: .everyActions(1_000))
      } catch {
        Issue.record("no journal: \(error)")
        return
      }
      let station = tallyStation(journal)
      for amount in 0..<n { station.pour(.add(amount)) }
      await station.reducePending()
      #expect(journal.lastSequence == UInt64(n))
      try? journal.close()
    }
  }

  @Test func aFileJournalWrittenAtEveryActionHoldsEachEntryOnceItsPourIsDone() async throws {
    let scratch = ScratchDirectory()
    let journal = try Journal.file(at: scratch.file("tally.journal"), durability: .everyAction)
    let station = tallyStation(journal)
    await station.pour(.add(5)).finish()
    // Read without flushing: the entry is on disk already.
    #expect(
      try Journal.read(at: scratch.file("tally.journal")).entries == [
        JournalEntry(sequence: 1, action: "5", stateHash: nil)
      ])
    await station.pour(.add(7)).finish()
    #expect(try Journal.read(at: scratch.file("tally.journal")).entries.map(\.action) == ["5", "7"])
    #expect(scratch.text("tally.journal").hasPrefix("dripper-journal 1\n1 - 5 "))
  }

  @Test func aJournalFlushedEveryNActionsHasThemAllOnceClosed() async throws {
    let scratch = ScratchDirectory()
    let journal = try Journal.file(at: scratch.file("tally.journal"), durability: .everyActions(4))
    let station = tallyStation(journal)
    for amount in 1...10 { station.pour(.add(amount)) }
    await station.pour(.add(0)).finish()
    try journal.flush()
    #expect(try Journal.read(at: scratch.file("tally.journal")).entries.count == 11)
    station.pour(.add(100))
    await station.pour(.add(200)).finish()
    try journal.close()
    let entries = try Journal.read(at: scratch.file("tally.journal")).entries
    #expect(entries.map(\.action).suffix(2) == ["100", "200"])
    #expect(entries.map(\.sequence) == Array(1...13))
  }

  @Test func aJournalFlushedOnAnIntervalWritesWithoutBeingAsked() async throws {
    let scratch = ScratchDirectory()
    let journal = try Journal.file(
      at: scratch.file("tally.journal"), durability: .interval(.milliseconds(20)))
    let station = tallyStation(journal)
    await station.pour(.add(1)).finish()
    // The journal's thread writes within the interval; the wait is bounded.
    var entries: [JournalEntry] = []
    for _ in 0..<500 where entries.isEmpty {
      entries = try Journal.read(at: scratch.file("tally.journal")).entries
      if entries.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(entries.map(\.action) == ["1"])
    withExtendedLifetime(journal) {}
  }

  @Test func reopeningAJournalNumbersNewEntriesAfterItsLast() async throws {
    let scratch = ScratchDirectory()
    do {
      let journal = try Journal.file(at: scratch.file("tally.journal"), durability: .everyAction)
      await tallyStation(journal).pour(.add(1)).finish()
      try journal.close()
    }
    let journal = try Journal.file(at: scratch.file("tally.journal"), durability: .everyAction)
    #expect(journal.lastSequence == 1)
    await tallyStation(journal).pour(.add(2)).finish()
    #expect(try Journal.read(at: scratch.file("tally.journal")).entries.map(\.sequence) == [1, 2])
  }

  @Test func aTornLastLineIsIgnoredWithANoteAndCutOffWhenTheJournalIsOpened() async throws {
    let scratch = ScratchDirectory()
    let path = scratch.file("tally.journal")
    do {
      let journal = try Journal.file(at: path, durability: .everyAction)
      let station = tallyStation(journal)
      await station.pour(.add(1)).finish()
      await station.pour(.add(2)).finish()
      try journal.close()
    }
    let whole = scratch.contents("tally.journal")!
    // A crash cut the third line short.
    scratch.write(Array("3 - 3 0123".utf8), to: "tally.journal", appending: true)

    let contents = try Journal.read(at: path)
    #expect(contents.entries.map(\.action) == ["1", "2"])
    #expect(
      contents.tornTail == "\(path): ignored 10 bytes after its last whole line: a write a crash cut short")

    let journal = try Journal.file(at: path, durability: .everyAction)
    #expect(journal.tornTail != nil)
    #expect(scratch.contents("tally.journal") == whole)
    await tallyStation(journal).pour(.add(3)).finish()
    #expect(try Journal.read(at: path).entries.map(\.sequence) == [1, 2, 3])
  }

  @Test func aGarbledLastLineIsATornTailButAGarbledLineBeforeAnotherIsCorruption() throws {
    let scratch = ScratchDirectory()
    let path = scratch.file("tally.journal")
    let first = JournalEntry(sequence: 1, action: "1", stateHash: nil).description + "\n"
    let second = JournalEntry(sequence: 2, action: "2", stateHash: nil).description + "\n"
    scratch.write(
      Array(("dripper-journal 1\n" + first + "2 - 2 00000000000000zz\n").utf8), to: "tally.journal")
    let torn = try Journal.read(at: path)
    #expect(torn.entries.count == 1)
    #expect(torn.tornTail?.contains("ignored its last line") == true)

    let corrupt = Array(("dripper-journal 1\n" + first + "2 - 9 0000000000000000\n" + second).utf8)
    scratch.write(corrupt, to: "tally.journal")
    #expect(throws: JournalError("\(path): line 3 is corrupt (its checksum does not match)")) {
      try Journal.read(at: path)
    }
    // Opening it for appending fails the same way and changes nothing.
    #expect(throws: JournalError.self) { try Journal.file(at: path) }
    #expect(scratch.contents("tally.journal") == corrupt)
  }

  @Test func entriesOutOfOrderAreCorruption() throws {
    let scratch = ScratchDirectory()
    let lines = [1, 3].map { JournalEntry(sequence: $0, action: "x", stateHash: nil).description + "\n" }
    scratch.write(Array(("dripper-journal 1\n" + lines.joined()).utf8), to: "tally.journal")
    #expect(
      throws: JournalError("\(scratch.file("tally.journal")): line 3 is corrupt (entry 3 follows entry 1)")
    ) {
      try Journal.read(at: scratch.file("tally.journal"))
    }
  }

  @Test func aFileThatIsNotAJournalIsRefusedAndLeftAlone() throws {
    let scratch = ScratchDirectory()
    scratch.write(Array("{\"todos\": []}\n".utf8), to: "todos.json")
    #expect(
      throws: JournalError(
        "\(scratch.file("todos.json")) is not a Dripper journal (its first line is not 'dripper-journal 1')")
    ) {
      try Journal.file(at: scratch.file("todos.json"))
    }
    #expect(scratch.text("todos.json") == "{\"todos\": []}\n")
  }

  @Test func aFIFOOrADirectoryAtThePathIsRefusedWithoutBlocking() throws {
    let scratch = ScratchDirectory()
    #expect(mkfifo(scratch.file("fifo"), 0o600) == 0)
    #expect(
      throws: JournalError("\(scratch.file("fifo")): it is not a regular file (a device, a FIFO or a socket)")
    ) {
      try Journal.file(at: scratch.file("fifo"))
    }
    #expect(throws: JournalError.self) { try Journal.read(at: scratch.file("fifo")) }
    #expect(mkdir(scratch.file("folder"), 0o700) == 0)
    #expect(throws: JournalError.self) { try Journal.file(at: scratch.file("folder")) }
  }

  @Test func aLinkAtThePathStaysAndTheFileItLeadsToIsAppendedTo() async throws {
    let scratch = ScratchDirectory()
    #expect(symlink("real.journal", scratch.file("link.journal")) == 0)
    let journal = try Journal.file(at: scratch.file("link.journal"), durability: .everyAction)
    await tallyStation(journal).pour(.add(4)).finish()
    var status = stat()
    #expect(lstat(scratch.file("link.journal"), &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
    #expect(try Journal.read(at: scratch.file("real.journal")).entries.map(\.action) == ["4"])
  }

  @Test func aPrivateJournalStaysPrivate() async throws {
    let scratch = ScratchDirectory()
    scratch.write(JournalLine.header, to: "tally.journal")
    #expect(chmod(scratch.file("tally.journal"), 0o600) == 0)
    let journal = try Journal.file(at: scratch.file("tally.journal"), durability: .everyAction)
    await tallyStation(journal).pour(.add(1)).finish()
    try journal.close()
    #expect(mode(of: scratch.file("tally.journal")) == 0o600)
  }

  @Test func aSecondWriterOfOneJournalIsRefused() throws {
    let scratch = ScratchDirectory()
    let first = try Journal.file(at: scratch.file("tally.journal"))
    #expect(throws: JournalError("\(scratch.file("tally.journal")) is in use by another process")) {
      try Journal.file(at: scratch.file("tally.journal"))
    }
    try first.close()
    _ = try Journal.file(at: scratch.file("tally.journal"))
  }

  #if canImport(Glibc)
    /// A process being started holds a copy of every open descriptor, and so the journal's lock,
    /// until it runs its program: posix_spawn's child does, for milliseconds on a loaded machine.
    /// A journal closed meanwhile must open again, not be refused as in use. Found under load:
    /// a durable journal reopened while a test spawned its crash child.
    @Test func aJournalOpensAgainWhileAProcessBeingStartedHoldsACopyOfItsDescriptor() throws {
      let scratch = ScratchDirectory()
      let path = scratch.file("tally.journal")
      let first = try Journal.file(at: path)
      // A child that holds the copy for 200 ms, then ends without running a program.
      let child = fork()
      if child == 0 {
        usleep(200_000)
        _exit(0)
      }
      #expect(child > 0)
      try first.close()
      let second = try Journal.file(at: path)
      try second.close()
      var status: Int32 = 0
      waitpid(child, &status, 0)
    }
  #endif

  @Test func recordingToAClosedJournalIsReportedAsADiagnostic() async throws {
    let scratch = ScratchDirectory()
    let journal = try Journal.file(at: scratch.file("tally.journal"), durability: .everyAction)
    let diagnostics = Lock<[String]>([])
    let station = Station(
      initialState: JournaledTally.State(),
      observers: [
        DripperObserver(diagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic.message) } })
      ]
    ) {
      JournaledTally().recording(to: journal) { _ in "x" }
    }
    try journal.close()
    await station.pour(.add(1)).finish()
    #expect(
      diagnostics.withLock { $0 } == [
        "the journal could not record: \(scratch.file("tally.journal")) is closed: entry 1 was not recorded"
      ])
    #expect(await station.total == 1)
  }

  @Test func anInvalidPolicyIsRefused() {
    #expect(throws: JournalError.self) {
      try Journal.file(at: "/tmp/never.journal", durability: .everyActions(0))
    }
    #expect(throws: JournalError.self) {
      try Journal.file(at: "/tmp/never.journal", durability: .interval(.zero))
    }
  }
}
