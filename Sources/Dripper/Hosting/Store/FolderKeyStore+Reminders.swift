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

/// The reminders of a ``FolderKeyStore``: a file a key with a reminder, in `reminders/`.
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

  /// The reminders due, blocking: on the store's threads.
  func remindersNow(dueBy date: Date, after: StoredReminder?, limit: Int) -> Result<
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
      case .failure:
        // A log this store cannot read (damaged, or a later version's): listed as its file says,
        // so that the host that wakes the key reports why it fails, and other keys' reminders
        // still fire.
        if let due = Self.due(inName: name) { listed.append(StoredReminder(key: key, due: due)) }
      }
    }
    return .success(listed)
  }

  /// The names in `folder`, hidden ones left out.
  private static func names(in folder: String) -> Result<[String], JournalError> {
    guard let names = AtomicFile.names(in: folder) else {
      return .failure(JournalError(folder, .init(code: errno)))
    }
    return .success(names.filter { !$0.hasPrefix(".") })
  }
}
