import Synchronization
import Testing

@testable import Dripper

/// A page of text that grows: a state and actions as large as a test needs.
private struct Notebook: Dripper {
  struct State: Equatable, Sendable { var text = "" }
  enum Action: Equatable, Sendable { case write(String) }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .write(let text): state.text += text
      }
      return .none
    }
  }

  static func journal(
    at directory: String, snapshotEvery: Int, limits: JournalLimits = .standard,
    decodeState: @escaping @Sendable (String) throws -> State = { State(text: $0) }
  ) -> DurableJournal<State, Action> {
    DurableJournal(
      directory: directory, durability: .everyAction, snapshotEvery: snapshotEvery, hashing: nil,
      codec: JournalCodec(
        encodeAction: { action in
          switch action {
          case .write(let text): text
          }
        },
        decodeAction: { .write($0) }, encodeState: { $0.text }, decodeState: decodeState),
      schema: .initial, limits: limits)
  }
}

/// The diagnostics a Station reports, collected.
private final class Reports: Sendable {
  let messages = Lock<[String]>([])
  func take(_ diagnostic: Diagnostic) { messages.withLock { $0.append(diagnostic.message) } }
  var all: [String] { messages.withLock { $0 } }
}

/// Limits a test can fill in milliseconds; the code that checks them is the code that checks the
/// real ones, 64 MiB each.
private let small = JournalLimits(line: 4_096, snapshot: 8_192)

@Suite struct JournalLimitsTests {
  /// Issue 50: a line longer than the reader's limit was synced, and the journal never opened
  /// again. The writer refuses it before reducing the action, spends no sequence number, and says
  /// so; the longest line it accepts reads back.
  @Test(arguments: ["memory", "file"])
  func anEntryLongerThanALineMayHoldIsRefusedAndTheActionNotReduced(sink: String) async throws {
    let scratch = ScratchDirectory()
    let path = scratch.file("notebook.journal")
    let journal =
      sink == "memory"
      ? Journal(file: nil, limits: small)
      : try Journal.file(at: path, durability: .everyAction, limits: small)
    let reports = Reports()
    let station = Station(initialState: Notebook.State()) {
      Notebook().recording(to: journal) { action in
        switch action {
        case .write(let text): text
        }
      }
    } withDependencies: {
      $0.diagnosticReporter = reports.take
    }
    let longest = small.actionBytes
    await station.pour(.write(String(repeating: "x", count: longest + 1))).finish()
    #expect(await station.state.text.isEmpty, "the refused action was reduced")
    #expect(journal.lastSequence == 0, "the refused entry spent a sequence number")
    #expect(reports.all.count == 1)
    #expect(reports.all.first?.hasPrefix("refused an action whose journal entry would be 4042 bytes") == true)
    // Escapes count: a newline is written as two bytes.
    await station.pour(.write(String(repeating: "\n", count: longest / 2 + 1))).finish()
    #expect(journal.lastSequence == 0)
    #expect(reports.all.count == 2)
    await station.pour(.write("ok")).finish()
    await station.pour(.write(String(repeating: "y", count: longest))).finish()
    #expect(journal.lastSequence == 2)
    #expect(reports.all.count == 2)
    if sink == "file" {
      try journal.close()
      guard let descriptor = try JournalReader.openForReading(path) else { return }
      defer { closeFile(descriptor) }
      var entries: [JournalEntry] = []
      _ = try JournalReader.scan(descriptor, path: path, lineLimit: small.line) { entries.append($0) }
      #expect(entries.map(\.sequence) == [1, 2])
      #expect(entries.last?.action.utf8.count == longest)
    }
  }

  /// The reader's limit and the writer's agree at the real size: the longest action the writer
  /// accepts, with the longest sequence number and a hash, makes a line of exactly the reader's
  /// limit.
  @Test func theLongestLineAWriterAcceptsIsTheLongestAReaderReads() {
    let limits = JournalLimits.standard
    #expect(limits.line == 64 << 20)
    var line: [UInt8] = []
    JournalLine.append(sequence: .max, action: String(repeating: "x", count: 8), stateHash: 0, to: &line)
    #expect(line.count - 1 - 8 == JournalLine.overhead)
    #expect(limits.actionBytes + JournalLine.overhead == limits.line)
    #expect(Journal.inMemory().actionBytes == limits.actionBytes)
  }

  /// A line longer than the reader's limit is refused by the reader, wherever its newline falls in
  /// the chunks read (it was checked only before the newline's chunk).
  @Test func aReaderRefusesALineOverItsLimitWhereverItsNewlineFalls() throws {
    let scratch = ScratchDirectory()
    var bytes = JournalLine.header
    JournalLine.append(sequence: 1, action: String(repeating: "w", count: 5_000), stateHash: nil, to: &bytes)
    scratch.write(bytes, to: "long.journal")
    let path = scratch.file("long.journal")
    guard let descriptor = try JournalReader.openForReading(path) else { return }
    defer { closeFile(descriptor) }
    #expect(throws: JournalError("\(path): line 2 is longer than 4096 bytes")) {
      try JournalReader.scan(descriptor, path: path, lineLimit: small.line) { _ in }
    }
  }

  /// Issue 50: a snapshot larger than recovery reads (64 MiB) was written, the journal cut back
  /// behind it, and every later recovery refused it: the only copy of the state was a file the
  /// library would not read. Now the snapshot is refused with a diagnostic, and the journal keeps
  /// its entries, from which recovery rebuilds the state.
  @Test func aSnapshotLargerThanRecoveryReadsIsRefusedAndTheJournalKeepsItsTail() async throws {
    let scratch = ScratchDirectory()
    let part = String(repeating: "z", count: 3_000)
    let expected = Notebook.State(text: "a" + part + part + part)
    do {
      let durable = Notebook.journal(at: scratch.path, snapshotEvery: 4, limits: small)
      let reports = Reports()
      let station = try Station.recovering(from: durable, initialState: Notebook.State()) {
        Notebook()
      } withDependencies: {
        $0.diagnosticReporter = reports.take
      }
      for text in ["a", part, part, part] { await station.pour(.write(text)).finish() }
      #expect(await station.state == expected)
      try durable.close()
      #expect(reports.all.count == 1)
      #expect(reports.all.first?.contains("the snapshot of entry 4 was not written: it would be") == true)
    }
    #expect(scratch.contents("snapshot") == nil)
    #expect(try Journal.read(at: scratch.file("journal")).entries.map(\.sequence) == [1, 2, 3, 4])
    let again = Notebook.journal(at: scratch.path, snapshotEvery: 4, limits: small)
    let station = try Station.recovering(from: again, initialState: Notebook.State()) { Notebook() }
    #expect(await station.state == expected)
    #expect(again.recovery?.replayed == 4)
  }

  /// A snapshot its own decoder refuses is not kept either: recovery would refuse it too.
  @Test func aSnapshotThatDoesNotDecodeIsRefusedAndTheJournalKeepsItsTail() async throws {
    let scratch = ScratchDirectory()
    struct Unreadable: Error {}
    let durable = Notebook.journal(at: scratch.path, snapshotEvery: 2) { text in
      guard !text.contains("!") else { throw Unreadable() }
      return Notebook.State(text: text)
    }
    let reports = Reports()
    let station = try Station.recovering(from: durable, initialState: Notebook.State()) {
      Notebook()
    } withDependencies: {
      $0.diagnosticReporter = reports.take
    }
    for text in ["a", "b", "!", "c"] { await station.pour(.write(text)).finish() }
    try durable.close()
    #expect(reports.all.count == 1)
    #expect(
      reports.all.first?.contains("the snapshot of entry 4 was not written: its text does not decode") == true
    )
    #expect(scratch.text("snapshot").hasPrefix("dripper-snapshot 1 2 "))
    #expect(try Journal.read(at: scratch.file("journal")).entries.map(\.sequence) == [3, 4])
  }
}
