/// When a file journal writes its entries to the file and syncs them: how much a crash may lose.
public enum JournalDurability: Sendable, Equatable {
  /// Each entry is written and synced before its reduction ends, before any observer or effect
  /// sees the state it left: a crash loses nothing that was reduced. Each action waits for the
  /// disk (a sync takes about 0.3 ms on the machine we develop on).
  case everyAction
  /// Entries are written and synced by a thread of the journal's own, once `count` of them are
  /// waiting: a crash loses at most the last `count` entries and those being written. Reductions
  /// never wait for the disk, unless it falls 64 MiB behind.
  case everyActions(Int)
  /// Entries are written and synced by the journal's thread at most `interval` after they are
  /// recorded: a crash loses at most the entries of the last `interval`.
  case interval(Duration)
}

/// Where a recording Station writes the actions it reduces: in memory, or a file that is only
/// ever appended to.
///
/// ```swift
/// let journal = try Journal.file(at: "counter.journal", durability: .everyAction)
/// let station = Station(initialState: Counter.State()) {
///   Counter().recording(to: journal) { action in "\(action)" }
/// }
/// ```
///
/// A file journal is written by one process at a time (a second is refused), keeps the file's mode,
/// refuses what is not a regular file, and reports a write that fails (a full disk) as an error,
/// keeping the entries to write them again at the next flush: nothing is dropped quietly. See
/// ``JournalDurability`` for what a crash may lose, and <doc:RecordingAndReplaying> for the format.
public final class Journal: Sendable {
  /// The entries of a journal in memory, in chunks of a fixed size: an append never copies the
  /// entries before it (a single array would copy them all each time it grew, holding the lock
  /// for as long), and a chunk freed is reused by the allocator.
  struct MemoryEntries {
    static let chunkSize = 1_024

    var full: [[JournalEntry]] = []
    var current: [JournalEntry] = []
    var lastSequence: UInt64 = 0

    mutating func append(_ entry: JournalEntry) {
      if current.count == current.capacity {
        if !current.isEmpty { full.append(current) }
        current = []
        current.reserveCapacity(Self.chunkSize)
      }
      current.append(entry)
    }

    var entries: [JournalEntry] {
      var entries: [JournalEntry] = []
      entries.reserveCapacity(full.count * Self.chunkSize + current.count)
      for chunk in full { entries += chunk }
      entries += current
      return entries
    }
  }

  /// A journal in memory keeps its entries here; a file journal, whose entries go to `file`,
  /// leaves it empty. Stored in the journal itself, so that an append reaches it with no
  /// reference to follow, retain or release.
  let memory = Lock(MemoryEntries())
  let file: JournalFile?
  /// The most an entry's action may take, escaped: what a line a reader reads holds.
  @usableFromInline let actionBytes: Int
  /// The length, in bytes, up to which any action's entry fits in a line: escaped, an action
  /// takes at most twice its bytes.
  @usableFromInline let surelyRecordedBytes: Int

  init(file: JournalFile?, limits: JournalLimits = .standard) {
    self.file = file
    self.actionBytes = limits.actionBytes
    self.surelyRecordedBytes = limits.actionBytes / 2
  }

  deinit {
    file?.shutDown(waiting: false)
  }

  /// A journal that keeps its entries in memory, numbered from 1: every entry, for as long as the
  /// journal lives (about 40 bytes an entry, plus an action's text past 15 bytes). For tests and
  /// sessions of bounded length; a long-running Station records to a file.
  public static func inMemory() -> Journal {
    Journal(file: nil)
  }

  /// A journal that appends to the file at `path`, creating it if there is none.
  ///
  /// An existing journal is read first: new entries are numbered after its last, and a torn last
  /// line (a crash cut a write short) is cut off the file, and said in ``tornTail``.
  ///
  /// - Throws: ``JournalError`` when the file cannot be opened or read, is not a journal, is
  ///   corrupt before its last line, is not a regular file, or is in use by another process (a
  ///   journal held by another writer is refused after about a second).
  public static func file(
    at path: String, durability: JournalDurability = .everyActions(1_000)
  ) throws(JournalError) -> Journal {
    try file(at: path, durability: durability, limits: .standard)
  }

  static func file(
    at path: String, durability: JournalDurability, limits: JournalLimits
  ) throws(JournalError) -> Journal {
    Journal(
      file: try JournalFile(path: path, durability: durability, afterSequence: 0, lineLimit: limits.line),
      limits: limits)
  }

  /// The entries recorded, in order: those of a journal in memory. A file journal keeps none in
  /// memory; read its file with ``read(at:)``.
  public var entries: [JournalEntry] {
    file == nil ? memory.withLock { $0.entries } : []
  }

  /// The number of the last entry recorded (written or still waiting to be); 0 before the first.
  public var lastSequence: UInt64 {
    file?.lastSequence ?? memory.withLock { $0.lastSequence }
  }

  /// What was cut off the end of the file when it was opened: a last line a crash tore.
  public var tornTail: String? {
    file?.tornTail
  }

  /// The error of the last write to the file, until a later write succeeds: the disk is full, or
  /// the file cannot be written. The entries that were not written wait for the next flush. `nil`
  /// for a journal in memory.
  ///
  /// A program that must not go on with changes it cannot keep checks it after each action:
  ///
  /// ```swift
  /// await station.pour(.add(title)).finish()
  /// if let failure = journal.writeFailure { print("error: \(failure)"); return }
  /// ```
  public var writeFailure: JournalError? {
    file?.writeFailure
  }

  /// Writes and syncs the entries still waiting: when it returns without throwing, every entry
  /// recorded before the call is on disk. Does nothing for a journal in memory.
  public func flush() throws(JournalError) {
    if let error = file?.flush() { throw error }
  }

  /// Flushes, then closes the file: recording to it afterwards is reported as an error. Closing
  /// is optional (a journal released is flushed and closed by its thread), but only `close()`
  /// says whether the last flush succeeded.
  public func close() throws(JournalError) {
    if let error = file?.shutDown(waiting: true) { throw error }
  }

  /// Records an action's entry; returns its sequence number and what the Station is to be told:
  /// a write that failed, a snapshot that was refused, not reported yet.
  @usableFromInline
  func append(action: String, stateHash: UInt64?) -> (sequence: UInt64, reports: [Diagnostic]) {
    if let file {
      let (sequence, error, notes) = file.append(action: action, stateHash: stateHash)
      guard error != nil || !notes.isEmpty else { return (sequence, []) }
      return (
        sequence, (error.map { [Self.diagnostic(for: $0)] } ?? []) + notes.map { Diagnostic(.other, $0) }
      )
    }
    let sequence = memory.withLock { journal in
      journal.lastSequence += 1
      journal.append(JournalEntry(sequence: journal.lastSequence, action: action, stateHash: stateHash))
      return journal.lastSequence
    }
    return (sequence, [])
  }

  /// Why the entry of an action encoded as `action` cannot be recorded, if it cannot: its line
  /// would be longer than a reader reads (64 MiB). Most actions are decided by their length alone.
  @inlinable
  func refusal(ofEntry action: String) -> Diagnostic? {
    guard action.utf8.count > surelyRecordedBytes else { return nil }
    return refusalOfLongEntry(action)
  }

  @usableFromInline
  func refusalOfLongEntry(_ action: String) -> Diagnostic? {
    let length = JournalLine.escapedLength(of: action)
    guard length > actionBytes else { return nil }
    return Diagnostic(
      .other,
      "refused an action whose journal entry would be \(length) bytes (\(Dump.line(String(action.prefix(40))))…), "
        + "more than the \(actionBytes) a journal line holds for its action: it was not reduced, and nothing "
        + "was recorded")
  }
}
