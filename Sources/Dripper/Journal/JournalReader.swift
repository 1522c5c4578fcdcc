#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a journal or a snapshot could not be read, written or recovered, in one line.
public struct JournalError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The explanation, naming the file.
  public let message: String

  /// An error saying `message`.
  public init(_ message: String) { self.message = message }

  /// The explanation.
  public var description: String { message }

  /// Whether the journal was refused because another process (or another host in this one) holds
  /// it: its lock, not its contents. A key moving between nodes is refused so until the node it
  /// leaves has closed it.
  public var isHeldByAnotherProcess: Bool {
    message.hasSuffix(Self.heldSuffix) || message.hasSuffix(Self.claimedSuffix)
  }

  /// Whether a ``KeyStore`` refused the write because another owner claimed the key since this
  /// one did: the key moved, and is served there now. Unlike a folder's lock, which its holder
  /// lets go when its handover ends, nothing here is waited for: using the key again on this host
  /// claims it back.
  public var isClaimedByAnotherOwner: Bool { message.hasSuffix(Self.claimedSuffix) }

  /// How the error of a journal another process holds ends.
  static let heldSuffix = " is in use by another process"
  /// How the error of a key another owner claimed in a ``KeyStore`` ends.
  static let claimedSuffix = ": another owner holds it"

  init(_ path: String, _ failure: AtomicFile.Failure) {
    self.init("\(path): \(failure.reason)")
  }
}

/// What reading a journal file found: its entries, and the torn last line it ignored, if any.
public struct JournalContents: Sendable, Equatable {
  /// The entries, in order.
  public var entries: [JournalEntry]
  /// What was ignored at the end of the file: a last line that a crash cut short or left
  /// garbled, as a one-line note; `nil` when the file ends with a whole line.
  public var tornTail: String?
  /// The schema version of the entries, as the file's first line names it: 1 unless a
  /// ``DurableJournal`` with a later ``JournalSchema`` wrote it.
  public var schemaVersion = 1

  /// Contents.
  public init(entries: [JournalEntry], tornTail: String?) {
    self.entries = entries
    self.tornTail = tornTail
  }
}

/// Reads a journal file from start to end, one entry at a time, without holding it whole.
///
/// Every line but the last must be a whole entry, numbered one more than the entry before it: a
/// damaged line in the middle is corruption, and the read fails naming it. The last line alone
/// may be torn, since a crash can cut a write short; it is ignored, and reported in
/// ``JournalScan/tornTail``.
struct JournalReader {

  /// What a read found.
  struct JournalScan {
    /// The last entry's sequence number, if there was an entry.
    var lastSequence: UInt64?
    /// How many bytes from the start are whole lines (the header included); what follows them is
    /// the torn tail.
    var validLength: Int = 0
    /// What was ignored at the end.
    var tornTail: String?
    /// The schema version the header names (1 for the plain header), or 1 for a file too short
    /// to have one.
    var schema = 1
    /// The header's length, with its newline.
    var headerLength = 0
  }

  /// Reads the open file `descriptor` (named `path` in errors) from its start, calling `each` with
  /// every entry in order.
  static func scan(
    _ descriptor: Int32, path: String, lineLimit: Int = JournalLimits.standard.line,
    header: (_ schema: Int) throws(JournalError) -> Void = { _ in },
    each: (JournalEntry) throws(JournalError) -> Void
  ) throws(JournalError) -> JournalScan {
    var scan = JournalScan()
    var line: [UInt8] = []
    var lineNumber = 0
    var offset = 0
    var sawHeader = false
    var damagedLine: (number: Int, damage: JournalLine.Damage, length: Int)?
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw JournalError(path, .init(code: errno)) }
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw JournalError(path, .init(code: errno))
      }
      if count == 0 { break }
      var start = 0
      while start < count {
        guard let end = chunk[start..<count].firstIndex(of: JournalLine.newline) else {
          line += chunk[start..<count]
          guard line.count <= lineLimit else {
            throw JournalError(
              "\(path): line \(lineNumber + 1) is longer than \(JournalLimits.describe(lineLimit))")
          }
          break
        }
        line += chunk[start..<end]
        start = end + 1
        lineNumber += 1
        guard line.count <= lineLimit else {
          throw JournalError(
            "\(path): line \(lineNumber) is longer than \(JournalLimits.describe(lineLimit))")
        }
        let length = line.count + 1
        defer {
          offset += length
          line.removeAll(keepingCapacity: true)
        }
        // A damaged line followed by another whole line is not a torn tail.
        if let damaged = damagedLine {
          throw JournalError("\(path): line \(damaged.number) is corrupt (\(describe(damaged.damage)))")
        }
        if !sawHeader {
          guard let schema = JournalLine.schema(ofHeader: line[...]) else {
            throw JournalError("\(path) is not a Dripper journal (its first line is not 'dripper-journal 1')")
          }
          try header(schema)
          scan.schema = schema
          scan.headerLength = length
          sawHeader = true
          scan.validLength = offset + length
          continue
        }
        switch JournalLine.decode(line[...]) {
        case .failure(let damage):
          damagedLine = (lineNumber, damage, length)
        case .success(let entry):
          if let last = scan.lastSequence, entry.sequence != last + 1 {
            throw JournalError(
              "\(path): line \(lineNumber) is corrupt (entry \(entry.sequence) follows entry \(last))")
          }
          try each(entry)
          scan.lastSequence = entry.sequence
          scan.validLength = offset + length
        }
      }
    }
    if let damaged = damagedLine {
      scan.tornTail =
        "\(path): ignored its last line, \(damaged.length) bytes (\(describe(damaged.damage))): a write a crash cut short"
    } else if !line.isEmpty {
      if !sawHeader, !JournalLine.header.starts(with: line),
        !Array("dripper-journal 1 schema ".utf8).starts(with: line.prefix(25))
      {
        throw JournalError("\(path) is not a Dripper journal (its first line is not 'dripper-journal 1')")
      }
      scan.tornTail =
        "\(path): ignored \(line.count) bytes after its last whole line: a write a crash cut short"
    }
    return scan
  }

  private static func describe(_ damage: JournalLine.Damage) -> String {
    switch damage {
    case .malformed: "not an entry"
    case .checksum: "its checksum does not match"
    }
  }

  /// Opens `path` for reading: only a regular file (a FIFO never blocks the open), through the
  /// links at the path. `nil` when there is no file.
  static func openForReading(_ path: String) throws(JournalError) -> Int32? {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw JournalError(path, .init(code: errno))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let failure = AtomicFile.Failure(code: errno)
      close(descriptor)
      throw JournalError(path, failure)
    }
    if let refusal = AtomicFile.refusal(forReading: status.st_mode) {
      close(descriptor)
      throw JournalError("\(path): \(refusal)")
    }
    return descriptor
  }
}

extension Journal {
  /// Reads the journal file at `path`: its entries, and the torn last line it ignored, if any.
  ///
  /// ```swift
  /// let contents = try Journal.read(at: "app.journal")
  /// let (state, report) = AppFeature().replay(contents.entries, from: App.State(), decode: App.Action.init)
  /// ```
  ///
  /// A missing file has no entries. A damaged line other than the last, entries out of order, or a
  /// file that is not a journal, is an error; a torn last line is not (see
  /// ``JournalContents/tornTail``).
  public static func read(at path: String) throws(JournalError) -> JournalContents {
    guard let descriptor = try JournalReader.openForReading(path) else {
      return JournalContents(entries: [], tornTail: nil)
    }
    defer { closeFile(descriptor) }
    var entries: [JournalEntry] = []
    let scan = try JournalReader.scan(descriptor, path: path) { entries.append($0) }
    var contents = JournalContents(entries: entries, tornTail: scan.tornTail)
    contents.schemaVersion = scan.schema
    return contents
  }
}

/// Closes a file, where a method named `close` would hide the C library's.
func closeFile(_ descriptor: Int32) {
  close(descriptor)
}

/// The most a journal's reader reads, which its writers therefore never write: a line, and a
/// durable journal's snapshot. 64 MiB each; tests make them small.
struct JournalLimits: Sendable {
  /// The most one line may hold, without its newline: a longer line is corruption, not read into
  /// memory, and an entry that would be longer is refused (see ``Journal/refusal(ofEntry:)``).
  let line: Int
  /// The most a snapshot file may hold, its header line included.
  let snapshot: Int

  static let standard = JournalLimits(line: AtomicFile.sizeLimit, snapshot: AtomicFile.sizeLimit)

  /// The most an entry's action may take, escaped.
  var actionBytes: Int { line - JournalLine.overhead }

  /// `bytes` in MiB when it is a whole number of them, else in bytes.
  static func describe(_ bytes: Int) -> String {
    bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
  }
}
