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

/// The reminders of a ``FolderKeyStore``: a file a key with a reminder, in a folder of
/// `reminders/` by due time.
extension FolderKeyStore {
  /// The folder of the reminders' files.
  var remindersFolder: String { folder + "/reminders" }

  /// A reminder's file: its due time, as 16 hexadecimal digits that sort as the times do, `-`,
  /// and its key's folder.
  static func reminderName(due: Date, place name: String) -> String {
    let bits = due.timeIntervalSince1970.bitPattern
    let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    return hex16(ordered) + "-" + name
  }

  /// The due time a reminder's file is named by.
  static func due(inName name: String) -> Date? {
    guard let ordered = UInt64(name.prefix(16), radix: 16) else { return nil }
    let bits = ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered
    return Date(timeIntervalSince1970: Double(bitPattern: bits))
  }

  /// The folder in `reminders/` of a reminder's file: the first six digits of its name. Near
  /// today's dates they span 2^18 seconds (about three days) of due times, so a listing reads the
  /// names of the reminders due within days of its time, never those of reminders due later.
  static func bucket(of name: some StringProtocol) -> String { String(name.prefix(6)) }

  /// The path of a reminder's file.
  func reminderPath(named name: String) -> String {
    remindersFolder + "/" + Self.bucket(of: name) + "/" + name
  }

  /// Writes a reminder's file, holding `key`, and syncs it; its folder is made if missing, and
  /// the folder's name synced in `reminders/`, or a crash could lose the file with its folder.
  /// It holds `reminders/` locked, shared with other writers, so that no listing removes the
  /// folder meanwhile (see ``remove(emptyFolders:)``).
  func writeReminder(named name: String, key: String) -> JournalError? {
    let bucket = remindersFolder + "/" + Self.bucket(of: name)
    let file = bucket + "/" + name
    return withRemindersLocked(exclusive: false) { reminders in
      if let failure = AtomicFile.makeDirectory(bucket) { return JournalError(bucket, failure) }
      guard HostFolder.kind(of: bucket) == .directory else {
        return JournalError("\(bucket): it is not a directory")
      }
      if fsync(reminders) != 0, errno != EINVAL { return JournalError(remindersFolder, .init(code: errno)) }
      return AtomicFile.replace(at: file, with: Array(key.utf8)).map { JournalError(file, $0) }
    }
  }

  /// Removes those of `folders` (in `reminders/`) that are empty, if no writer holds
  /// `reminders/`: a folder a writer is writing into is never removed. A busy or failed attempt
  /// leaves them for a later listing.
  private func remove(emptyFolders folders: [String]) {
    _ = withRemindersLocked(exclusive: true) { _ in
      for folder in folders { rmdir(remindersFolder + "/" + folder) }
      return nil
    }
  }

  /// Runs `body` with `reminders/` open (never through a link) and locked (`flock`): shared, or
  /// exclusive if it is free now; the error that stopped it. Nothing runs when an exclusive lock
  /// is busy.
  private func withRemindersLocked(exclusive: Bool, _ body: (Int32) -> JournalError?) -> JournalError? {
    let descriptor = open(remindersFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { return JournalError(remindersFolder, .init(code: errno)) }
    defer { close(descriptor) }
    while flock(descriptor, exclusive ? LOCK_EX | LOCK_NB : LOCK_SH) != 0 {
      guard errno == EINTR else {
        return exclusive && errno == EWOULDBLOCK ? nil : JournalError(remindersFolder, .init(code: errno))
      }
    }
    return body(descriptor)
  }

  /// What a listing of due reminders found, and how many reminders' names it read to find them.
  struct Listing {
    var reminders: [StoredReminder] = []
    var namesRead = 0
  }

  /// The reminders due, blocking: on the store's threads. It reads the folders of the reminders
  /// due by `date`, in order, until it has `limit`.
  func remindersNow(dueBy date: Date, after: StoredReminder?, limit: Int) -> Result<Listing, JournalError> {
    var listing = Listing()
    guard limit > 0 else { return .success(listing) }
    let bound = Self.reminderName(due: date, place: "~")
    let start = after.map { Self.reminderName(due: $0.due, place: place(of: $0.key).name) }
    let buckets: [String]
    switch Self.names(in: remindersFolder) {
    case .success(let names):
      buckets = names.filter { name in
        name.utf8.count == 6 && name <= Self.bucket(of: bound)
          && start.map { name >= Self.bucket(of: $0) } ?? true
      }.sorted()
    case .failure(let error): return .failure(error)
    }
    var empty: [String] = []
    for bucket in buckets where listing.reminders.count < limit {
      let folder = remindersFolder + "/" + bucket
      // Gone since the folders were listed, or not a folder (a link): nothing to list.
      guard HostFolder.kind(of: folder) == .directory, case .success(var names) = Self.names(in: folder)
      else {
        continue
      }
      listing.namesRead += names.count
      names = names.filter { name in
        name.utf8.count > 17 && name <= bound && start.map { name > $0 } ?? true
      }
      let listed = listing.reminders.count
      for name in names.sorted() where listing.reminders.count < limit {
        if let reminder = reminder(named: name, in: folder) { listing.reminders.append(reminder) }
      }
      // A folder that lists nothing may be empty (its stale files removed): removed if it is.
      if listing.reminders.count == listed { empty.append(bucket) }
    }
    if !empty.isEmpty { remove(emptyFolders: empty) }
    return .success(listing)
  }

  /// The reminder a file names, if its key agrees; a stale file (its key's reminder moved) is
  /// removed under the key's lock.
  private func reminder(named name: String, in folder: String) -> StoredReminder? {
    let file = folder + "/" + name
    guard case .success(let bytes?) = AtomicFile.contents(at: file, limit: 1 << 20) else { return nil }
    let key = String(decoding: bytes, as: UTF8.self)
    let place = place(of: key)
    guard Array(key.utf8) == bytes,
      Self.reminderName(due: .distantPast, place: place.name).dropFirst(16) == name.dropFirst(16)
    else { return nil }
    let current = place.exists() ? place.read().map(\.reminder) : .success(nil)
    switch current {
    case .success(let due?) where Self.reminderName(due: due, place: place.name) == name:
      return StoredReminder(key: key, due: due)
    case .success:
      _ = place.locked(creating: false, whole: false) { log -> Result<Void, JournalError> in
        if log.contents.reminder.map({ Self.reminderName(due: $0, place: place.name) }) != name {
          unlink(file)
        }
        return .success(())
      }
      return nil
    case .failure:
      // A log this store cannot read (damaged, or a later version's): listed as its file says,
      // so that the host that wakes the key reports why it fails, and other keys' reminders
      // still fire.
      return Self.due(inName: name).map { StoredReminder(key: key, due: $0) }
    }
  }

  /// The names in `folder`, hidden ones left out.
  private static func names(in folder: String) -> Result<[String], JournalError> {
    guard let names = AtomicFile.names(in: folder) else {
      return .failure(JournalError(folder, .init(code: errno)))
    }
    return .success(names.filter { !$0.hasPrefix(".") })
  }
}
