import Dispatch

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Where a ``KeyLog`` writes a key's entries and snapshots: a journal file, or a key of a
/// ``KeyStore``. Blocking: called on a storage thread.
protocol KeySink: AnyObject, Sendable {
  /// Writes `bytes`, journal lines, and each snapshot once the bytes before its offset are
  /// durable; how many bytes were written, and the error that stopped it.
  func write(
    _ bytes: [UInt8], snapshots: ArraySlice<(offset: Int, write: @Sendable () -> SnapshotOutcome)>
  ) -> (written: Int, failure: JournalError?)

  /// Lets go of what the sink holds open; waits for writes under way if `waiting`. The error of
  /// the last write.
  @discardableResult
  func shutDown(waiting: Bool) -> JournalError?

  /// The refused snapshots not reported yet, which are then reported.
  func takeNotes() -> [String]

}

/// A sink whose entries are written without blocking a thread (a key of a ``KeyStore``): its
/// ``KeyLog`` flushes batches of entries from a task, and only those with a snapshot on a storage
/// thread.
protocol AsyncKeySink: KeySink {
  /// Writes `bytes`, journal lines, and returns once they are durable, or the error that stopped
  /// them (nothing of them kept).
  func writeEntries(_ bytes: [UInt8]) async -> JournalError?
}

extension JournalFile: KeySink {}

/// A key of a ``KeyStore``, as a ``KeyLog`` writes it: each batch of entries one ``KeyWrite`` at
/// the epoch of the key's claim, carrying the key's reminder hint.
///
/// The hint is what ``KeyStore/reminders(dueBy:limit:)`` lists for a key no host holds (its node
/// died): at or before the key's earliest reminder. It is made earlier as the reduction that sets
/// a reminder runs, before that reduction's entry is written, so a write never says less than its
/// entries need; it is made exact (later, or none) only by a snapshot, which holds every entry.
/// A hint too early wakes a key for nothing, which then says what it waits for.
final class StoreSink: AsyncKeySink {
  let store: any KeyStore
  let key: String
  let epoch: UInt64
  /// The schema version entries are written under.
  let schema: Int
  private let reminder: Lock<Date?>
  private let notes = Lock<[String]>([])

  init(store: any KeyStore, key: String, epoch: UInt64, schema: Int, reminder: Date?) {
    self.store = store
    self.key = key
    self.epoch = epoch
    self.schema = schema
    self.reminder = Lock(reminder)
  }

  /// The key's earliest reminder changed to `date` as it reduced: the hint is made earlier if it
  /// must be.
  func hint(_ date: Date?) {
    guard let date else { return }
    reminder.withLock { hint in
      if hint.map({ date < $0 }) ?? true { hint = date }
    }
  }

  func write(
    _ bytes: [UInt8], snapshots: ArraySlice<(offset: Int, write: @Sendable () -> SnapshotOutcome)>
  ) -> (written: Int, failure: JournalError?) {
    var written = 0
    var remaining = snapshots
    while written < bytes.count || !remaining.isEmpty {
      let end = remaining.first?.offset ?? bytes.count
      if end > written {
        let write: KeyWrite
        switch entriesWrite(bytes[written..<end]) {
        case .success(let made): write = made
        case .failure(let error): return (written, error)
        }
        if let error = Self.blocking({ [store] in await store.write([write]).first ?? nil }) {
          return (written, error)
        }
        written = end
      }
      if let snapshot = remaining.popFirst() {
        switch snapshot.write() {
        case .written: break
        case .failed(let error): return (written, error)
        case .refused(let note): notes.withLock { $0.append(note) }
        }
      }
    }
    return (written, nil)
  }

  func writeEntries(_ bytes: [UInt8]) async -> JournalError? {
    switch entriesWrite(bytes[...]) {
    case .success(let write): await store.write([write]).first ?? nil
    case .failure(let error): error
    }
  }

  /// The write of `bytes`, journal lines, at the key's epoch, with its reminder hint now.
  private func entriesWrite(_ bytes: ArraySlice<UInt8>) -> Result<KeyWrite, JournalError> {
    Self.entries(in: bytes, schema: schema).map { entries in
      KeyWrite(key: key, epoch: epoch, entries: entries, reminder: reminder.withLock { $0 })
    }
  }

  /// Writes `snapshot`, the state after its entry, whose earliest reminder is `reminder`. Blocking.
  ///
  /// `exact` when nothing can follow the snapshot (the key passivates): the hint becomes
  /// `reminder`. Otherwise entries after it may wait with an earlier reminder, and the hint is the
  /// earlier of the two.
  func write(_ snapshot: StoredSnapshot, reminder date: Date?, exact: Bool) -> SnapshotOutcome {
    let hint = exact ? date : reminder.withLock { hint in [hint, date].compactMap { $0 }.min() }
    let write = KeyWrite(key: key, epoch: epoch, snapshot: snapshot, reminder: hint)
    if let error = Self.blocking({ [store] in await store.write([write]).first ?? nil }) {
      return .failed(error)
    }
    if exact { reminder.withLock { $0 = date } }
    return .written
  }

  func shutDown(waiting: Bool) -> JournalError? { nil }

  func takeNotes() -> [String] {
    notes.withLock { notes in
      defer { notes = [] }
      return notes
    }
  }

  /// The entries of journal lines, each with its newline.
  static func entries(in bytes: ArraySlice<UInt8>, schema: Int) -> Result<[StoredEntry], JournalError> {
    var entries: [StoredEntry] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
      guard let newline = bytes[start...].firstIndex(of: JournalLine.newline),
        case .success(let entry) = JournalLine.decode(bytes[start..<newline])
      else { return .failure(JournalError("a journal line to store is malformed")) }
      entries.append(
        StoredEntry(sequence: entry.sequence, schema: schema, bytes: Array(bytes[start..<newline])))
      start = newline + 1
    }
    return .success(entries)
  }

  /// Runs `body` and waits for its error: on a storage thread, never on a task's.
  static func blocking(_ body: @escaping @Sendable () async -> JournalError?) -> JournalError? {
    let result = Lock<JournalError?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      let error = await body()
      result.withLock { $0 = error }
      done.signal()
    }
    done.wait()
    return result.withLock { $0 }
  }
}
