import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A journal file being appended to: the entries waiting to be written, and the thread that writes
/// them (for ``JournalDurability/everyActions(_:)`` and ``JournalDurability/interval(_:)``).
///
/// Two locks: `pending`, taken by each append for as long as it takes to add a line, and
/// `writing`, held while a batch is written and synced. A flush takes the batch out of `pending`
/// while it holds `writing`, so batches reach the file in the order they were recorded, and an
/// append never waits for the disk.
final class JournalFile: Sendable {
  struct Pending {
    var bytes: [UInt8] = []
    var count = 0
    var lastSequence: UInt64
    /// Snapshots to write once the bytes before `offset` are written and synced, after which the
    /// journal is cut back to its header.
    var snapshots: [(offset: Int, write: @Sendable () -> SnapshotOutcome)] = []
    /// The last write error, until an append reports it.
    var unreported: JournalError?
    /// Snapshots refused (see ``SnapshotOutcome/refused(_:)``), until an append reports them.
    var notes: [String] = []
    /// Whether the thread has been told to write since it last took a batch.
    var signaled = false
    var closed = false
  }

  struct Writing {
    var descriptor: Int32
    /// The file's length: where the next batch goes, and what a failed batch is cut back to.
    var length: Int
    /// The first line's: what compacting cuts the file back to.
    var headerLength: Int
    var error: JournalError?
  }

  let path: String
  let durability: JournalDurability
  /// Whether each append writes and syncs its entry (``JournalDurability/everyAction``).
  let writesEachAction: Bool
  /// How many entries wake the writer: ``JournalDurability/everyActions(_:)``'s count, or never.
  let batchSize: Int
  let tornTail: String?
  /// The schema version of the entries the file held when it was opened (1 for a new file).
  let openedSchema: Int
  let pending: Lock<Pending>
  let writing: Lock<Writing>
  /// Wakes the writing thread; `nil` when each action writes itself.
  let wake: DispatchSemaphore?
  /// Signaled by the writing thread as it ends.
  let ended = DispatchSemaphore(value: 0)

  /// Takes the journal's lock, so that a second writer is refused; returns the `errno` of a
  /// failure, `EWOULDBLOCK` when another holds it.
  ///
  /// The lock belongs to the open file, and a process being started holds a copy of every
  /// descriptor until it runs its program: closed here meanwhile, a journal would still be locked
  /// by a process that is about to let go of it, for milliseconds on a loaded machine. So a held
  /// lock is tried again, every millisecond for a second, before the journal is refused: a real
  /// second writer holds it for longer.
  private static func lockExclusively(_ descriptor: Int32) -> Int32? {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(1))
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      let failure = errno
      if failure == EINTR { continue }
      guard failure == EWOULDBLOCK, clock.now < deadline else { return failure }
      usleep(1_000)
    }
    return nil
  }

  /// Opens (or creates) the journal at `path` and reads it; `each` sees its entries, those after
  /// `afterSequence`, in order.
  init(
    path: String, durability: JournalDurability, afterSequence: UInt64,
    lineLimit: Int = JournalLimits.standard.line, schema: Int? = nil,
    header: (_ schema: Int) throws(JournalError) -> Void = { _ in },
    each: (JournalEntry) throws(JournalError) -> Void = { _ in }
  ) throws(JournalError) {
    if case .everyActions(let count) = durability, count < 1 {
      throw JournalError("\(path): a journal flushed every \(count) actions")
    }
    if case .interval(let interval) = durability, interval <= .zero {
      throw JournalError("\(path): a journal flushed every \(interval)")
    }
    let target: String
    switch AtomicFile.resolvingLinks(path) {
    case .success(let resolved): target = resolved
    case .failure(let failure): throw JournalError(path, failure)
    }
    // Never through a link (the chain was resolved), never blocking on a FIFO.
    let descriptor = open(target, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { throw JournalError(path, .init(code: errno)) }
    var opened = true
    defer { if opened { close(descriptor) } }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw JournalError(path, .init(code: errno)) }
    if let refusal = AtomicFile.refusal(forReading: status.st_mode) {
      throw JournalError("\(path): \(refusal)")
    }
    if let failure = Self.lockExclusively(descriptor) {
      if failure == EWOULDBLOCK { throw JournalError(path + JournalError.heldSuffix) }
      throw JournalError(path, .init(code: failure))
    }
    let scan = try JournalReader.scan(descriptor, path: path, lineLimit: lineLimit, header: header) {
      entry throws(JournalError) in
      if entry.sequence > afterSequence { try each(entry) }
    }
    var length = scan.validLength
    let hasEntriesAfter = (scan.lastSequence ?? 0) > afterSequence
    if afterSequence > 0, !hasEntriesAfter, length > scan.headerLength {
      // Every entry is in the snapshot: a crash came between writing it and compacting.
      length = 0
    }
    if let schema, schema != scan.schema, !hasEntriesAfter {
      // No entry of the old schema is left to read: the journal starts again under the new one.
      length = 0
    }
    let header = JournalLine.header(schema: length == 0 ? schema ?? 1 : scan.schema)
    if length == 0 {
      // A new journal, or one whose header a crash tore: it starts again with its header.
      // At the start: the read left the file's offset at its end, and a write there would leave
      // a hole of zero bytes before the header.
      guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
        throw JournalError(path, .init(code: errno))
      }
      if let failure = AtomicFile.writeAll(header, to: descriptor) {
        throw JournalError(path, failure)
      }
      length = header.count
    } else if scan.tornTail != nil {
      if ftruncate(descriptor, off_t(length)) != 0 { throw JournalError(path, .init(code: errno)) }
    }
    if fsync(descriptor) != 0 { throw JournalError(path, .init(code: errno)) }
    guard lseek(descriptor, off_t(length), SEEK_SET) >= 0 else {
      throw JournalError(path, .init(code: errno))
    }
    opened = false
    self.path = path
    self.durability = durability
    self.writesEachAction = durability == .everyAction
    if case .everyActions(let count) = durability { batchSize = count } else { batchSize = .max }
    self.tornTail = scan.tornTail
    self.openedSchema = scan.schema
    self.pending = Lock(Pending(lastSequence: max(scan.lastSequence ?? 0, afterSequence)))
    self.writing = Lock(Writing(descriptor: descriptor, length: length, headerLength: header.count))
    switch durability {
    case .everyAction:
      wake = nil
      ended.signal()
    case .everyActions, .interval:
      wake = DispatchSemaphore(value: 0)
      guard startWriter() else {
        closeDescriptor()
        throw JournalError("\(path): could not start the thread that writes the journal")
      }
    }
  }

  var lastSequence: UInt64 { pending.withLock { $0.lastSequence } }

  /// The error of the last flush, until one succeeds.
  var writeFailure: JournalError? { writing.withLock { $0.error } }

  /// Adds an entry's line; writes it at once, or wakes the writer, as the durability says.
  /// Returns its sequence number, a write error and refused snapshots not reported yet.
  func append(action: String, stateHash: UInt64?) -> (sequence: UInt64, error: JournalError?, notes: [String])
  {
    let (sequence, error, signal, mustWrite) = pending.withLock { pending in
      pending.lastSequence += 1
      if pending.closed {
        pending.unreported = JournalError("\(path) is closed: entry \(pending.lastSequence) was not recorded")
      } else {
        JournalLine.append(
          sequence: pending.lastSequence, action: action, stateHash: stateHash, to: &pending.bytes)
        pending.count += 1
      }
      let error = pending.unreported
      pending.unreported = nil
      var signal = false
      if pending.count >= batchSize, !pending.signaled {
        pending.signaled = true
        signal = true
      }
      // A disk 64 MiB behind makes the reductions wait for it.
      let mustWrite = writesEachAction || pending.bytes.count > AtomicFile.sizeLimit
      return (pending.lastSequence, error, signal, mustWrite)
    }
    if signal { wake?.signal() }
    var failure = error
    if mustWrite, let flushed = flush() { failure = failure ?? flushed }
    return (sequence, failure, takeNotes())
  }

  /// The refused snapshots not reported yet, which are then reported.
  func takeNotes() -> [String] {
    pending.withLock { pending -> [String] in
      guard !pending.notes.isEmpty else { return [] }
      defer { pending.notes = [] }
      return pending.notes
    }
  }

  /// Runs `write`, which writes a snapshot of the state after the last entry recorded, once every
  /// entry so far is written and synced; then cuts the journal back to its header, since the
  /// snapshot holds what the entries did.
  func snapshot(_ write: @escaping @Sendable () -> SnapshotOutcome) {
    let (signal, mustWrite) = pending.withLock { pending in
      pending.snapshots.append((pending.bytes.count, write))
      let signal = !pending.signaled
      pending.signaled = true
      return (signal, durability == .everyAction)
    }
    if mustWrite {
      _ = flush()
    } else if signal {
      wake?.signal()
    }
  }

  /// Writes and syncs what is waiting, and the snapshots due; the error of a write that failed,
  /// after which what was not written waits for the next flush.
  @discardableResult
  func flush() -> JournalError? {
    writing.withLock { writing in
      let (bytes, snapshots) = pending.withLock { pending in
        defer {
          let capacity = pending.bytes.count
          pending.bytes = []
          pending.bytes.reserveCapacity(capacity)
          pending.count = 0
          pending.snapshots = []
          pending.signaled = false
        }
        return (pending.bytes, pending.snapshots)
      }
      let (written, failure) = write(bytes, snapshots: snapshots[...], writing: &writing)
      if let failure {
        // What was not written waits for the next flush, before what comes after it.
        pending.withLock { pending in
          pending.bytes = Array(bytes[written...]) + pending.bytes
          pending.unreported = failure
        }
        return failure
      }
      return nil
    }
  }

  /// Writes and syncs `bytes` at the end of the file, and each snapshot once the bytes before its
  /// offset are synced; how many bytes were written, and the error that stopped it. The file's
  /// ``writeFailure`` is set to the error, or cleared.
  func write(
    _ bytes: [UInt8], snapshots: ArraySlice<(offset: Int, write: @Sendable () -> SnapshotOutcome)>
  ) -> (written: Int, failure: JournalError?) {
    writing.withLock { writing in write(bytes, snapshots: snapshots, writing: &writing) }
  }

  private func write(
    _ bytes: [UInt8], snapshots: ArraySlice<(offset: Int, write: @Sendable () -> SnapshotOutcome)>,
    writing: inout Writing
  ) -> (written: Int, failure: JournalError?) {
    guard writing.descriptor >= 0 else {
      let failure =
        bytes.isEmpty ? nil : JournalError("\(path) is closed: \(bytes.count) bytes were not written")
      return (0, failure)
    }
    var written = 0
    var failure: JournalError?
    var remainingSnapshots = snapshots
    while failure == nil, written < bytes.count || !remainingSnapshots.isEmpty {
      let end = remainingSnapshots.first?.offset ?? bytes.count
      if end > written {
        failure = writeSynced(bytes[written..<end], writing: &writing)
        if failure == nil { written = end }
      }
      if failure == nil, let snapshot = remainingSnapshots.popFirst() {
        // A snapshot that failed or was refused is not tried again: the next one holds more.
        // The journal is cut back only behind one that was written.
        switch snapshot.write() {
        case .written: failure = compact(writing: &writing)
        case .failed(let error): failure = error
        case .refused(let note): pending.withLock { $0.notes.append(note) }
        }
      }
    }
    writing.error = failure
    return (written, failure)
  }

  /// Writes `bytes` at the end of the file and syncs them; on failure, cuts the file back to its
  /// length before, so that no half line stays in the middle of the journal.
  private func writeSynced(_ bytes: ArraySlice<UInt8>, writing: inout Writing) -> JournalError? {
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
      let count = bytes[offset...].withUnsafeBytes {
        systemWrite(writing.descriptor, $0.baseAddress, $0.count)
      }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        _ = ftruncate(writing.descriptor, off_t(writing.length))
        _ = lseek(writing.descriptor, off_t(writing.length), SEEK_SET)
        return JournalError(path, .init(code: code))
      }
      offset += count
    }
    if fdatasync(writing.descriptor) != 0 {
      let code = errno
      _ = ftruncate(writing.descriptor, off_t(writing.length))
      _ = lseek(writing.descriptor, off_t(writing.length), SEEK_SET)
      return JournalError(path, .init(code: code))
    }
    writing.length += bytes.count
    return nil
  }

  /// Cuts the journal back to its header: the entries before are in a snapshot.
  func compact(writing: inout Writing) -> JournalError? {
    let length = writing.headerLength
    guard ftruncate(writing.descriptor, off_t(length)) == 0, fsync(writing.descriptor) == 0,
      lseek(writing.descriptor, off_t(length), SEEK_SET) >= 0
    else { return JournalError(path, .init(code: errno)) }
    writing.length = length
    return nil
  }

  /// Empties the journal and starts it again under `schema`'s header, before anything is recorded:
  /// after a recovery that migrated its entries into a snapshot of the new schema.
  func restart(schema: Int) -> JournalError? {
    writing.withLock { writing in
      let header = JournalLine.header(schema: schema)
      guard ftruncate(writing.descriptor, 0) == 0, lseek(writing.descriptor, 0, SEEK_SET) == 0 else {
        return JournalError(path, .init(code: errno))
      }
      if let failure = AtomicFile.writeAll(header, to: writing.descriptor) {
        return JournalError(path, failure)
      }
      guard fsync(writing.descriptor) == 0 else { return JournalError(path, .init(code: errno)) }
      writing.length = header.count
      writing.headerLength = header.count
      return nil
    }
  }
}

/// The system's `write`, which `JournalFile.write(_:snapshots:)` hides inside the type.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}
