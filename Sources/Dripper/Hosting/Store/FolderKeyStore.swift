#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ``KeyStore`` in a folder: each key's entries, snapshot, reminder and epoch in a file of its
/// own, fenced by epochs, as a store shared by several hosts must be.
///
/// ```swift
/// let store = try FolderKeyStore(folder: "/var/lib/wallets")
/// let host = try StationHost<String, Wallet>(
///   storage: .store(store, codec: .json, node: "node-a"),
///   initialState: { _ in Wallet.State() }, dripper: { _ in Wallet() })
/// ```
///
/// It keeps every promise of a ``KeyStore`` (`KeyStoreConformance` checks it as it checks
/// PostgreSQL's): a write is acknowledged once its file is synced, a write at an old epoch is
/// refused, and a refused write leaves nothing.
///
/// **How it differs from a host's own folder** (``HostStorage/folder(_:codec:schema:durability:snapshotEvery:node:)``, the default):
/// there, a host holds a key's journal locked for as long as the key is resident, and a second
/// host is refused until the first lets go. Here each claim and each write locks the key's folder
/// for as long as it takes, and the last claim wins: a host that claims a key takes it over, and
/// the writes of the host that held it are refused from then on. That is what a host router needs
/// to hand a key over. Several processes may share the folder on one machine, or on a file system
/// whose `flock` works across machines.
///
/// **The folder.** `dripper-key-store`, which marks it a store's and names its layout's version;
/// `keys/AB/CD/NAME/log` a key, named as a host's folder names its keys (the
/// two levels from a hash of the key's bytes; a long key's folder named by the hash, with the key
/// in a `key` file to check); and `reminders/`, a file a key with a reminder, named by its due
/// time and the key's folder, in a folder of about three days of due times, so that
/// ``reminders(dueBy:after:limit:)`` reads neither every key nor the reminders due later. A key
/// is compared byte for byte, as PostgreSQL's store compares it: `é` written composed and
/// decomposed are two keys.
///
/// **Costs.** A write appends one record and syncs the file (~1.1 ms on the machine Dripper is
/// developed on); a write of many keys syncs them at once, on threads of its own. A write
/// with a snapshot writes the key's file again and renames it over the old one; a new key, a
/// reminder that moves, and a claim each sync a file or a folder more.
public struct FolderKeyStore: KeyStore {
  /// The folder the store keeps its keys in.
  public let folder: String
  /// What each key's log said when this store last read or wrote it.
  private let summaries = LogSummaries()

  /// The threads the store's files are read, written and synced on: its own, not the host's. A
  /// host writes a snapshot from one of its storage threads, and waits there for the store: were
  /// they one pool, a burst of snapshots could hold every thread waiting for work none is free to do.
  static let threads = StorageThreads(maximumThreads: 64)

  /// The largest key log read: a larger one is refused (a host snapshots long before).
  static let largestLog = 256 << 20

  /// The file that marks a folder as a store's, and the version of its layout.
  static let marker = "dripper-key-store"
  static let markerContents = Array("dripper key store \(layout)\n".utf8)
  /// The version of the folder's layout: 2 keeps reminders in folders by due time (1, flat, was
  /// never released).
  static let layout = 2

  /// A store in `folder`, made if missing (with its parents). A path that is not a folder is
  /// refused, and so is a folder that holds keys but is not a store's (a host's own folder), or
  /// a store of a later layout: each in one line, and left as it is.
  public init(folder: String) throws(JournalError) {
    var path = folder
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    self.folder = path
    if let (made, failure) = AtomicFile.makeDirectories(path) { throw JournalError(made, failure) }
    let marker = path + "/" + Self.marker
    switch AtomicFile.contents(at: marker, limit: 1 << 10) {
    case .success(let bytes?):
      guard bytes == Self.markerContents else {
        throw JournalError(
          "\(path): a key store of another layout (\(marker) is not \"dripper key store \(Self.layout)\"): refused"
        )
      }
    case .success(nil):
      for child in ["keys", "reminders"] where HostFolder.kind(of: path + "/" + child) != .missing {
        throw JournalError(
          "\(path): it holds \(child)/ but is not a key store's folder (a host's own folder?): refused")
      }
      if let failure = AtomicFile.replace(at: marker, with: Self.markerContents) {
        throw JournalError(marker, failure)
      }
    case .failure(let failure):
      throw JournalError(marker, failure)
    }
    for child in ["keys", "reminders"] {
      if let failure = AtomicFile.makeDirectory(path + "/" + child) {
        throw JournalError(path + "/" + child, failure)
      }
    }
  }

  // MARK: - KeyStore

  /// Claims `key` for `owner`: its epoch goes up by one, synced, and its contents come back (see
  /// ``KeyStore/claim(_:owner:)``).
  public func claim(_ key: String, owner: String) async throws(JournalError) -> StoredKey {
    let place = place(of: key)
    return try await blocking { () -> Result<StoredKey, JournalError> in
      place.locked(creating: false, whole: true) { log in
        guard log.contents.written else { return .success(StoredKey(epoch: 1)) }
        let epoch = log.contents.epoch + 1
        var next = log.contents
        next.epoch = epoch
        if let error = log.append(FolderKeyLog.claimRecord(epoch: epoch, owner: owner), leaving: next) {
          return .failure(error)
        }
        var stored = log.contents.stored
        stored.epoch = epoch
        return .success(stored)
      }
    }.get()
  }

  /// Whether `key` was written (see ``KeyStore/exists(_:)``).
  public func exists(_ key: String) async throws(JournalError) -> Bool {
    let place = place(of: key)
    return try await blocking { () -> Result<Bool, JournalError> in
      guard place.exists() else { return .success(false) }
      return place.read().map(\.written)
    }.get()
  }

  /// Writes each write whose epoch is the key's and whose entries follow its last (see
  /// ``KeyStore/write(_:)``): the keys at once, each key's writes in order.
  public func write(_ writes: [KeyWrite]) async -> [JournalError?] {
    var byKey: [String: [Int]] = [:]
    var order: [String] = []
    for (index, write) in writes.enumerated() {
      if byKey[write.key] == nil { order.append(write.key) }
      byKey[write.key, default: []].append(index)
    }
    let store = self
    if order.count == 1 { return await blocking { writes.map { store.writeNow($0) } } }
    return await withTaskGroup(of: [(Int, JournalError?)].self) { group in
      for key in order {
        let indices = byKey[key] ?? []
        let keyWrites = indices.map { writes[$0] }
        group.addTask {
          let errors = await store.blocking { keyWrites.map { store.writeNow($0) } }
          return Array(zip(indices, errors))
        }
      }
      var results = [JournalError?](repeating: nil, count: writes.count)
      for await done in group {
        for (index, error) in done { results[index] = error }
      }
      return results
    }
  }

  /// The keys whose reminders are due by `date`, ordered by due time and then by the key's
  /// folder (see ``KeyStore/reminders(dueBy:after:limit:)``). A file in `reminders/` that its
  /// key's log no longer agrees with (a crash between the two) is removed as it is met.
  public func reminders(dueBy date: Date, after: StoredReminder?, limit: Int) async throws(JournalError)
    -> [StoredReminder]
  {
    let store = self
    return try await blocking { store.remindersNow(dueBy: date, after: after, limit: limit).map(\.reminders) }
      .get()
  }

  // MARK: - Writing

  /// Writes `write` now, blocking: on the store's threads.
  private func writeNow(_ write: KeyWrite) -> JournalError? {
    let place = place(of: write.key)
    if write.epoch != 1, !place.exists() {
      return .heldElsewhere(key: write.key, "it was never written, and is written at epoch \(write.epoch)")
    }
    let result = place.locked(creating: true, whole: write.snapshot != nil) {
      log -> Result<Void, JournalError> in
      let contents = log.contents
      let epoch = contents.written ? contents.epoch : 1
      guard write.epoch == epoch else {
        return .failure(
          .heldElsewhere(key: write.key, "claimed at epoch \(epoch), written at \(write.epoch)"))
      }
      var last = contents.last
      for entry in write.entries {
        guard entry.sequence == last + 1 else {
          return .failure(.heldElsewhere(key: write.key, "entry \(entry.sequence) written after \(last)"))
        }
        last = entry.sequence
      }
      if let snapshot = write.snapshot, snapshot.sequence > last {
        return .failure(
          JournalError("key \(write.key): a snapshot of entry \(snapshot.sequence) after the last, \(last)"))
      }
      // The reminder's file first: a crash before the log is written leaves a file the listing
      // removes, never a reminder without its file.
      let moved = write.reminder != contents.reminder
      if moved, let due = write.reminder,
        let error = writeReminder(named: Self.reminderName(due: due, place: place.name), key: write.key)
      {
        return .failure(error)
      }
      var next = contents
      (next.epoch, next.last, next.reminder, next.written) = (epoch, last, write.reminder, true)
      let error =
        write.snapshot == nil
        ? log.append(FolderKeyLog.writeRecord(write), leaving: next) : log.rewrite(with: write, leaving: next)
      if let error { return .failure(error) }
      if moved, let old = contents.reminder {
        unlink(reminderPath(named: Self.reminderName(due: old, place: place.name)))
      }
      return .success(())
    }
    if case .failure(let error) = result { return error }
    return nil
  }

  /// The file `key` is kept in: for tests.
  func logPath(of key: String) -> String { place(of: key).logPath }

  /// The folder of the store's reminder files: for tests.
  var remindersPath: String { remindersFolder }

  /// Where `key` is kept: its folder, named by its bytes.
  func place(of key: String) -> Place {
    var hash = FNV1a()
    hash.add(key.utf8)
    let hex = Self.hex16(hash.value)
    let escaped = KeyFolder.name(of: key)
    let levels = (hex.prefix(2), hex.dropFirst(2).prefix(2))
    let name = escaped.utf8.count <= KeyFolder.longestName ? escaped : "h" + hex
    return Place(
      folder: "\(folder)/keys/\(levels.0)/\(levels.1)/\(name)", name: "\(levels.0)\(levels.1)\(name)",
      key: key, summaries: summaries)
  }

  /// `value` as 16 hexadecimal digits, zeros first: names that sort as the numbers do.
  static func hex16(_ value: UInt64) -> String {
    var digits: [UInt8] = []
    JournalLine.appendHex(value, to: &digits)
    return String(repeating: "0", count: 16 - digits.count) + String(decoding: digits, as: UTF8.self)
  }

  /// Runs `body` on the store's threads, and returns what it returns.
  func blocking<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
      Self.threads.run { continuation.resume(returning: body()) }
    }
  }
}
