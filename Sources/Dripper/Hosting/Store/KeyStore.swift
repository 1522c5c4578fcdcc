#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Storage a ``StationHost`` keeps its keys in, that several hosts (the nodes of a cluster) can
/// share: each key's journal entries and snapshot, its earliest reminder, and its owner's epoch,
/// a fencing token that lets one owner at a time write the key.
///
/// A host claims a key as it activates it: the claim raises the key's epoch and returns what is
/// stored, which the host replays. Every write carries the epoch it was claimed at, and the store
/// refuses it if another host claimed the key since: of two hosts that both believe they own a
/// key, only the one that claimed it last writes it, and the other's key fails (its pours throw a
/// ``HostError/storage(key:_:)`` whose error ``JournalError/isHeldByAnotherProcess``). Nothing
/// forks.
///
/// Dripper ships ``FolderKeyStore``, in a folder; `Integrations/DripperPostgres` ships
/// `PostgresKeyStore`, for PostgreSQL.
///
/// The host decides what the bytes say (journal lines, snapshots with their schema version and
/// checksum); a store keeps them as they are, and reads them back in order.
///
/// ```swift
/// let host = try StationHost<String, Wallet>(
///   storage: .store(PostgresKeyStore(client: client), codec: .json, node: "node-a"),
///   initialState: { _ in Wallet.State() }, dripper: { _ in Wallet() })
/// ```
///
/// A store promises (`KeyStoreConformance`, in DripperTesting, checks each):
/// - a write is acknowledged only once it is durable: it survives the store's process, and the
///   machine's, as the store says;
/// - a key's entries come back in order, each once, after its snapshot;
/// - a write refused leaves nothing of itself: not an entry, not the snapshot, not the reminder;
/// - a write at an epoch other than the key's current one is refused as held by another owner,
///   and so is a write of an entry whose number the key holds already;
/// - a claim of a key with nothing stored writes nothing: the first write creates the key, and of
///   two hosts writing a new key first, one is refused;
/// - ``reminders(dueBy:after:limit:)`` lists each key whose last write named a reminder due by
///   then, in one order, page after page.
public protocol KeyStore: Sendable {
  /// Claims `key` for `owner` and returns what is stored, with the epoch its writes carry.
  ///
  /// The key's epoch goes up by one, so that the writes of any earlier claim are refused from now
  /// on. A key with nothing stored is not written: its epoch is 1, taken by its first write.
  func claim(_ key: String, owner: String) async throws(JournalError) -> StoredKey

  /// Whether `key` has anything stored; reads no more than that, and writes nothing.
  func exists(_ key: String) async throws(JournalError) -> Bool

  /// Writes `writes`, of one key or many, and returns once each is durable or refused: one
  /// result a write, in order, `nil` for a write that is durable.
  ///
  /// A store may write them together (one transaction, one flush: group commit), but a refused
  /// write leaves nothing, and refuses no other key's.
  func write(_ writes: [KeyWrite]) async -> [JournalError?]

  /// Up to `limit` keys whose earliest reminder, as their last write said, is due by `date`,
  /// earliest first, keys due at the same time in an order of the store's; with `after`, only
  /// those that come after it in that order (the last of the page before: a host reads past keys
  /// it does not fire, however many are due before its own).
  ///
  /// ```swift
  /// let first = try await store.reminders(dueBy: now, after: nil, limit: 1_000)
  /// let next = try await store.reminders(dueBy: now, after: first.last, limit: 1_000)
  /// ```
  func reminders(dueBy date: Date, after: StoredReminder?, limit: Int) async throws(JournalError)
    -> [StoredReminder]
}

extension KeyStore {
  /// Up to `limit` keys whose earliest reminder is due by `date`, earliest first: the first page
  /// of ``reminders(dueBy:after:limit:)``.
  public func reminders(dueBy date: Date, limit: Int) async throws(JournalError) -> [StoredReminder] {
    try await reminders(dueBy: date, after: nil, limit: limit)
  }
}

/// What a ``KeyStore`` holds of a key: the epoch of the claim that read it, its snapshot and the
/// entries after it, and its earliest reminder.
public struct StoredKey: Sendable, Equatable {
  /// The epoch this claim holds: what its writes carry.
  public var epoch: UInt64
  /// The key's last snapshot, if it has one.
  public var snapshot: StoredSnapshot?
  /// The entries after the snapshot, in order.
  public var entries: [StoredEntry]
  /// The key's earliest reminder, as its last write said.
  public var reminder: Date?

  /// A key's stored contents.
  public init(
    epoch: UInt64, snapshot: StoredSnapshot? = nil, entries: [StoredEntry] = [], reminder: Date? = nil
  ) {
    self.epoch = epoch
    self.snapshot = snapshot
    self.entries = entries
    self.reminder = reminder
  }

  /// Whether the key has anything stored.
  public var isEmpty: Bool { snapshot == nil && entries.isEmpty }
}

/// One journal entry of a key, as a ``KeyStore`` keeps it.
public struct StoredEntry: Sendable, Equatable {
  /// The entry's number in the key's history: 1, 2, 3…, each once.
  public var sequence: UInt64
  /// The version of the ``JournalSchema`` it was written under.
  public var schema: Int
  /// The entry, as the host encodes it: kept as it is.
  public var bytes: [UInt8]

  /// An entry.
  public init(sequence: UInt64, schema: Int, bytes: [UInt8]) {
    self.sequence = sequence
    self.schema = schema
    self.bytes = bytes
  }
}

/// A key's snapshot, as a ``KeyStore`` keeps it: the state after entry `sequence`.
public struct StoredSnapshot: Sendable, Equatable {
  /// The last entry the snapshot holds: the entries up to it are no longer needed.
  public var sequence: UInt64
  /// The snapshot, as the host encodes it (its schema version and checksum inside): kept as it is.
  public var bytes: [UInt8]

  /// A snapshot.
  public init(sequence: UInt64, bytes: [UInt8]) {
    self.sequence = sequence
    self.bytes = bytes
  }
}

/// What a host writes to one key of a ``KeyStore`` at once: entries, a snapshot, or both, and the
/// key's earliest reminder after them.
public struct KeyWrite: Sendable, Equatable {
  /// The key.
  public var key: String
  /// The epoch of the claim the host holds: the write is refused if the key's is another.
  public var epoch: UInt64
  /// Entries to append, in order, after the key's last.
  public var entries: [StoredEntry]
  /// A snapshot to keep in place of the key's last, written after the entries.
  public var snapshot: StoredSnapshot?
  /// The key's earliest reminder after this write, or `nil` for none.
  public var reminder: Date?

  /// A write of `key` at `epoch`.
  public init(
    key: String, epoch: UInt64, entries: [StoredEntry] = [], snapshot: StoredSnapshot? = nil,
    reminder: Date? = nil
  ) {
    self.key = key
    self.epoch = epoch
    self.entries = entries
    self.snapshot = snapshot
    self.reminder = reminder
  }
}

/// A key whose earliest reminder is due, as a ``KeyStore`` lists it.
public struct StoredReminder: Sendable, Equatable {
  /// The key.
  public var key: String
  /// When its earliest reminder is due.
  public var due: Date

  /// A key's reminder.
  public init(key: String, due: Date) {
    self.key = key
    self.due = due
  }
}

extension JournalError {
  /// The error a ``KeyStore`` refuses a write with when another owner claimed the key since the
  /// writer did (or wrote a new key first): ``isHeldByAnotherProcess`` is true.
  ///
  /// ```swift
  /// throw JournalError.heldElsewhere(key: key, "claimed at epoch \(current), written at \(epoch)")
  /// ```
  public static func heldElsewhere(key: String, _ detail: String) -> JournalError {
    JournalError("key \(key): \(detail)\(claimedSuffix)")
  }
}
