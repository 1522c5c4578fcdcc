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
/// **The folder.** `keys/AB/CD/NAME/log` a key, named as a host's folder names its keys (the
/// two levels from a hash of the key's bytes; a long key's folder named by the hash, with the key
/// in a `key` file to check); and `reminders/`, a file a key with a reminder, named by its due
/// time and the key's folder, that ``reminders(dueBy:after:limit:)`` lists without reading every
/// key. A key is compared byte for byte, as PostgreSQL's store compares it: `é` written composed
/// and decomposed are two keys.
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

  /// A store in `folder`, made if missing (with its parents); a path that is not a folder is
  /// refused.
  public init(folder: String) throws(JournalError) {
    var path = folder
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    self.folder = path
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      current += "/" + component
      if let failure = AtomicFile.makeDirectory(current) { throw JournalError(current, failure) }
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
    return try await blocking { store.remindersNow(dueBy: date, after: after, limit: limit) }.get()
  }

  // MARK: - Writing

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
      if moved, let due = write.reminder {
        let file = remindersFolder + "/" + Self.reminderName(due: due, place: place.name)
        if let failure = AtomicFile.replace(at: file, with: Array(write.key.utf8)) {
          return .failure(JournalError(file, failure))
        }
      }
      var next = contents
      (next.epoch, next.last, next.reminder, next.written) = (epoch, last, write.reminder, true)
      let error =
        write.snapshot == nil
        ? log.append(FolderKeyLog.writeRecord(write), leaving: next) : log.rewrite(with: write, leaving: next)
      if let error { return .failure(error) }
      if moved, let old = contents.reminder {
        unlink(remindersFolder + "/" + Self.reminderName(due: old, place: place.name))
      }
      return .success(())
    }
    if case .failure(let error) = result { return error }
    return nil
  }

  // MARK: - Reminders

  private var remindersFolder: String { folder + "/reminders" }

  /// A reminder's file: its due time, as 16 hexadecimal digits that sort as the times do, `-`,
  /// and its key's folder.
  private static func reminderName(due: Date, place name: String) -> String {
    let bits = due.timeIntervalSince1970.bitPattern
    let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    var digits: [UInt8] = []
    JournalLine.appendHex(ordered, to: &digits)
    let hex = String(repeating: "0", count: 16 - digits.count) + String(decoding: digits, as: UTF8.self)
    return hex + "-" + name
  }

  private func remindersNow(dueBy date: Date, after: StoredReminder?, limit: Int) -> Result<
    [StoredReminder], JournalError
  > {
    guard limit > 0 else { return .success([]) }
    let bound = Self.reminderName(due: date, place: "~")
    let start = after.map { Self.reminderName(due: $0.due, place: place(of: $0.key).name) }
    var names: [String]
    switch Self.names(in: remindersFolder) {
    case .success(let all): names = all
    case .failure(let error): return .failure(error)
    }
    names = names.filter { name in name.utf8.count > 17 && name <= bound && start.map { name > $0 } ?? true }
    names.sort()
    var listed: [StoredReminder] = []
    for name in names where listed.count < limit {
      let file = remindersFolder + "/" + name
      guard case .success(let bytes?) = AtomicFile.contents(at: file, limit: 1 << 20) else { continue }
      let key = String(decoding: bytes, as: UTF8.self)
      let place = place(of: key)
      guard Array(key.utf8) == bytes,
        Self.reminderName(due: .distantPast, place: place.name).dropFirst(16) == name.dropFirst(16)
      else { continue }
      let current = place.exists() ? place.read().map(\.reminder) : .success(nil)
      switch current {
      case .success(let due?) where Self.reminderName(due: due, place: place.name) == name:
        listed.append(StoredReminder(key: key, due: due))
      case .success:
        // Stale: removed under the key's lock, if its log still disagrees.
        _ = place.locked(creating: false, whole: false) { log -> Result<Void, JournalError> in
          if log.contents.reminder.map({ Self.reminderName(due: $0, place: place.name) }) != name {
            unlink(file)
          }
          return .success(())
        }
      case .failure(let error):
        return .failure(error)
      }
    }
    return .success(listed)
  }

  /// The names in `folder`, hidden ones left out.
  private static func names(in folder: String) -> Result<[String], JournalError> {
    guard let stream = opendir(folder) else { return .failure(JournalError(folder, .init(code: errno))) }
    defer { closedir(stream) }
    var names: [String] = []
    let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
    while let entry = readdir(stream) {
      let name = String(
        cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
      if !name.hasPrefix(".") { names.append(name) }
    }
    return .success(names)
  }

  // MARK: - Keys' folders

  /// The file `key` is kept in: for tests.
  func logPath(of key: String) -> String { place(of: key).logPath }

  /// The folder of the store's reminder files: for tests.
  var remindersPath: String { remindersFolder }

  private func place(of key: String) -> Place {
    var hash = FNV1a()
    hash.add(key.utf8)
    var digits: [UInt8] = []
    JournalLine.appendHex(hash.value, to: &digits)
    let hex = String(repeating: "0", count: 16 - digits.count) + String(decoding: digits, as: UTF8.self)
    let escaped = KeyFolder.name(of: key)
    let levels = (hex.prefix(2), hex.dropFirst(2).prefix(2))
    let name = escaped.utf8.count <= KeyFolder.longestName ? escaped : "h" + hex
    return Place(
      folder: "\(folder)/keys/\(levels.0)/\(levels.1)/\(name)", name: "\(levels.0)\(levels.1)\(name)",
      key: key, summaries: summaries)
  }

  private func blocking<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
      Self.threads.run { continuation.resume(returning: body()) }
    }
  }
}

extension FolderKeyStore {
  /// Where a key is kept.
  fileprivate struct Place: Sendable {
    /// The key's folder.
    let folder: String
    /// The name that stands for the key in `reminders/`: its folder's levels and name.
    let name: String
    let key: String
    let summaries: LogSummaries

    var isHashed: Bool { name.utf8.dropFirst(4).first == UInt8(ascii: "h") }
    var logPath: String { folder + "/log" }

    /// Whether the key's folder exists (it may hold no write yet).
    func exists() -> Bool {
      var status = stat()
      return lstat(folder, &status) == 0
    }

    /// What the key's log says, read without its lock (a write under way is cut off, and left out).
    func read() -> Result<FolderKeyLog.Contents, JournalError> {
      let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard descriptor >= 0 else {
        let code = errno
        return code == ENOENT ? .success(.init()) : .failure(JournalError(folder, .init(code: code)))
      }
      defer { close(descriptor) }
      if let error = checkKeyFile(creating: false) { return .failure(error) }
      return readLog(in: descriptor, whole: false)
    }

    /// Runs `body` with the key's folder locked (`flock`) and its log read; makes the folder
    /// first if `creating`, or runs `body` on an empty log if there is none. Unless `whole`, a log
    /// this store knows the beginning and length of is not read again: `body` sees what a write
    /// checks, not the entries.
    func locked<Value>(creating: Bool, whole: Bool, _ body: (OpenLog) -> Result<Value, JournalError>)
      -> Result<
        Value, JournalError
      >
    {
      if creating, let error = make() { return .failure(error) }
      // Never through a link: a link planted as a key's folder is refused (ELOOP).
      let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard descriptor >= 0 else {
        let code = errno
        if code == ENOENT, !creating { return body(OpenLog(place: self, directory: -1, contents: .init())) }
        return .failure(JournalError(folder, .init(code: code)))
      }
      defer { close(descriptor) }
      while flock(descriptor, LOCK_EX) != 0 {
        guard errno == EINTR else { return .failure(JournalError(folder, .init(code: errno))) }
      }
      if let error = checkKeyFile(creating: creating) { return .failure(error) }
      switch readLog(in: descriptor, whole: whole) {
      case .success(let contents):
        return body(OpenLog(place: self, directory: descriptor, contents: contents))
      case .failure(let error): return .failure(error)
      }
    }

    /// The log in the key's folder, open as `directory`: never through a link, at most
    /// ``FolderKeyStore/largestLog`` bytes.
    private func readLog(in directory: Int32, whole: Bool) -> Result<FolderKeyLog.Contents, JournalError> {
      let descriptor = openat(directory, "log", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
      guard descriptor >= 0 else {
        let code = errno
        return code == ENOENT ? .success(.init()) : .failure(JournalError(logPath, .init(code: code)))
      }
      defer { close(descriptor) }
      var status = stat()
      guard fstat(descriptor, &status) == 0 else {
        return .failure(JournalError(logPath, .init(code: errno)))
      }
      if let refusal = AtomicFile.refusal(forReading: status.st_mode) {
        return .failure(JournalError(logPath, .init(refusing: refusal)))
      }
      // The summary holds if the log is as long as when it was taken and begins alike: logs are
      // appended to, and one written again begins with a record of its own.
      if !whole, let summary = summaries[folder], Int(status.st_size) == summary.length,
        Self.begins(descriptor, with: summary.first)
      {
        return .success(summary)
      }
      guard Int(status.st_size) <= FolderKeyStore.largestLog else {
        return .failure(
          JournalError(logPath, .init(refusing: "it is larger than \(FolderKeyStore.largestLog >> 20) MiB")))
      }
      var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
      var count = 0
      while count < bytes.count {
        let read = bytes.withUnsafeMutableBytes {
          pread(descriptor, $0.baseAddress! + count, $0.count - count, off_t(count))
        }
        if read < 0, errno == EINTR { continue }
        guard read >= 0 else { return .failure(JournalError(logPath, .init(code: errno))) }
        if read == 0 { break }
        count += read
      }
      bytes.removeLast(bytes.count - count)
      let contents = FolderKeyLog.read(bytes).mapError { JournalError("\(logPath): \($0.message)") }
      if case .success(let read) = contents, read.length == bytes.count, read.written {
        summaries[folder] = read
      }
      return contents
    }

    /// Whether the file open as `descriptor` begins with `bytes`.
    private static func begins(_ descriptor: Int32, with bytes: [UInt8]) -> Bool {
      guard !bytes.isEmpty else { return false }
      var start = [UInt8](repeating: 0, count: bytes.count)
      let count = start.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, 0) }
      return count == bytes.count && start == bytes
    }

    /// Makes the key's folder and its parents, syncing each parent that gains a folder.
    private func make() -> JournalError? {
      var current = ""
      let parts = folder.split(separator: "/", omittingEmptySubsequences: false)
      for (index, part) in parts.enumerated() {
        current += (index == 0 ? "" : "/") + part
        guard index >= parts.count - 3 else { continue }
        if mkdir(current, 0o777) == 0 {
          let parent = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
          if let failure = AtomicFile.syncDirectory(parent) { return JournalError(parent, failure) }
        } else if errno != EEXIST {
          return JournalError(current, .init(code: errno))
        }
      }
      return nil
    }

    /// A hashed folder keeps its key's bytes in `key`: written the first time, and a folder
    /// holding another key (two long keys of one hash) refused.
    private func checkKeyFile(creating: Bool) -> JournalError? {
      guard isHashed else { return nil }
      let file = folder + "/key"
      switch AtomicFile.contents(at: file, limit: 1 << 20) {
      case .success(let bytes?):
        return bytes.elementsEqual(key.utf8)
          ? nil
          : JournalError("\(folder) holds another key whose bytes have the same hash: this key is refused")
      case .success(nil):
        guard creating else { return nil }
        return AtomicFile.replace(at: file, with: Array(key.utf8)).map { JournalError(file, $0) }
      case .failure(let failure):
        return JournalError(file, failure)
      }
    }
  }

  /// A key's log, read with its folder locked: appended to, or written again, while the lock is
  /// held.
  fileprivate struct OpenLog {
    let place: Place
    /// The key's folder, open and locked.
    let directory: Int32
    let contents: FolderKeyLog.Contents

    private var path: String { place.logPath }

    /// Appends `record` after the log's whole records (cutting off a torn one) and syncs it; a
    /// failed append is cut off again. `next` is what the log says after it.
    func append(_ record: [UInt8], leaving next: FolderKeyLog.Contents) -> JournalError? {
      guard record.count - 13 <= FolderKeyLog.largestPayload else {
        return JournalError("\(path): a write of \(record.count) bytes is larger than a record holds")
      }
      place.summaries[place.folder] = nil
      // A new log begins with a record of its own.
      let first = contents.length == 0 ? FolderKeyLog.header + FolderKeyLog.firstRecord(epoch: 0) : nil
      let descriptor = openat(directory, "log", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
      guard descriptor >= 0 else { return JournalError(path, .init(code: errno)) }
      defer { close(descriptor) }
      var status = stat()
      guard fstat(descriptor, &status) == 0 else { return JournalError(path, .init(code: errno)) }
      if let refusal = AtomicFile.refusal(forReading: status.st_mode) {
        return JournalError(path, .init(refusing: refusal))
      }
      let start = contents.length
      if Int(status.st_size) != start, ftruncate(descriptor, off_t(start)) != 0 {
        return JournalError(path, .init(code: errno))
      }
      let bytes = (first ?? []) + record
      var written = 0
      while written < bytes.count {
        let count = bytes.withUnsafeBytes {
          pwrite(descriptor, $0.baseAddress! + written, $0.count - written, off_t(start + written))
        }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return undo(descriptor, at: start) }
        written += count
      }
      guard fdatasync(descriptor) == 0 else { return undo(descriptor, at: start) }
      // A new log's name in its folder is synced too.
      if first != nil, fsync(directory) != 0, errno != EINVAL {
        return JournalError(path, .init(code: errno))
      }
      remember(next, length: start + bytes.count, first: first ?? contents.first)
      return nil
    }

    /// Cuts a failed append off, and says why it failed.
    private func undo(_ descriptor: Int32, at length: Int) -> JournalError {
      let code = errno
      _ = ftruncate(descriptor, off_t(length))
      return JournalError(path, .init(code: code))
    }

    /// Keeps what the log says, without its entries, for the next write to check.
    private func remember(_ next: FolderKeyLog.Contents, length: Int, first: [UInt8]) {
      var summary = next
      (summary.entries, summary.snapshot, summary.isWhole) = ([], nil, false)
      (summary.length, summary.first) = (length, first)
      place.summaries[place.folder] = summary
    }

    /// Writes the log again, `write` (with its snapshot) in place of everything before it, and
    /// renames it over the old one, whose mode it keeps. `next` is what the log says after it.
    func rewrite(with write: KeyWrite, leaving next: FolderKeyLog.Contents) -> JournalError? {
      var kept = write
      let snapshot = write.snapshot?.sequence ?? 0
      kept.entries = (contents.entries + write.entries).filter { $0.sequence > snapshot }
      let record = FolderKeyLog.writeRecord(kept)
      guard record.count - 13 <= FolderKeyLog.largestPayload else {
        return JournalError("\(path): a write of \(record.count) bytes is larger than a record holds")
      }
      place.summaries[place.folder] = nil
      let first = FolderKeyLog.header + FolderKeyLog.firstRecord(epoch: write.epoch)
      let bytes = first + record
      var status = stat()
      let mode = fstatat(directory, "log", &status, AT_SYMLINK_NOFOLLOW) == 0 ? status.st_mode & 0o7777 : nil
      unlinkat(directory, "log.new", 0)
      // Readable by its owner alone until it takes the old log's mode; a new log's is 0666 less
      // the umask.
      let descriptor = openat(
        directory, "log.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
        mode == nil ? 0o666 : 0o600)
      guard descriptor >= 0 else { return JournalError(path + ".new", .init(code: errno)) }
      var failure = AtomicFile.writeAll(bytes, to: descriptor)
      if failure == nil, let mode, fchmod(descriptor, mode) != 0 { failure = .init(code: errno) }
      if failure == nil, fsync(descriptor) != 0 { failure = .init(code: errno) }
      close(descriptor)
      if failure == nil, renameat(directory, "log.new", directory, "log") != 0 {
        failure = .init(code: errno)
      }
      if let failure {
        unlinkat(directory, "log.new", 0)
        return JournalError(path, failure)
      }
      if fsync(directory) != 0, errno != EINVAL { return JournalError(path, .init(code: errno)) }
      remember(next, length: bytes.count, first: first)
      return nil
    }
  }
}

/// What each key's log said when a ``FolderKeyStore`` last read or wrote it, without its entries:
/// its epoch, last entry and reminder, its length and its first record. A write checks these
/// without reading the log again, as long as the log is as long as then and begins alike (another
/// process's append makes it longer; its rewrite begins with a record of its own).
final class LogSummaries: Sendable {
  /// The most kept: past it, all are let go, and read again as used.
  private static let most = 100_000
  private let table = Lock<[String: FolderKeyLog.Contents]>([:])

  subscript(folder: String) -> FolderKeyLog.Contents? {
    get { table.withLock { $0[folder] } }
    set {
      table.withLock { table in
        if newValue != nil, table.count >= Self.most, table[folder] == nil { table.removeAll() }
        table[folder] = newValue
      }
    }
  }
}
