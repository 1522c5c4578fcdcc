#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A key's files in a ``FolderKeyStore``: its folder, its log read and written under the folder's
/// lock, and what the store last saw of each log.
extension FolderKeyStore {
  /// Where a key is kept.
  struct Place: Sendable {
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
      if case .success(var summary) = contents, summary.length == bytes.count, summary.written {
        // What a write checks, without the entries: a summary a key, kept for many keys.
        (summary.entries, summary.snapshot, summary.isWhole) = ([], nil, false)
        summaries[folder] = summary
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
  struct OpenLog {
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
