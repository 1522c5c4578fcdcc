public import Dripper

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A `KeyStore` in memory, that keeps every promise a store makes but durability: for tests of
/// hosts sharing a store (two nodes, a handover, a node's death), and as the reference
/// ``KeyStoreConformance`` is checked against.
///
/// ```swift
/// let store = InMemoryKeyStore()
/// let a = try StationHost<String, Wallet>(storage: .store(store, codec: .json, node: "a"), …)
/// let b = try StationHost<String, Wallet>(storage: .store(store, codec: .json, node: "b"), …)
/// ```
public actor InMemoryKeyStore: KeyStore {
  private struct Key {
    var epoch: UInt64 = 0
    var owner: String?
    var snapshot: StoredSnapshot?
    var entries: [StoredEntry] = []
    var reminder: Date?
  }

  private var keys: [[UInt8]: Key] = [:]

  /// An empty store.
  public init() {}

  /// Claims `key` for `owner` (see `KeyStore/claim(_:owner:)`).
  public func claim(_ key: String, owner: String) throws(JournalError) -> StoredKey {
    let name = Array(key.utf8)
    guard var stored = keys[name] else { return StoredKey(epoch: 1) }
    stored.epoch += 1
    stored.owner = owner
    keys[name] = stored
    return StoredKey(
      epoch: stored.epoch, snapshot: stored.snapshot, entries: stored.entries, reminder: stored.reminder)
  }

  /// Whether `key` was written (see `KeyStore/exists(_:)`).
  public func exists(_ key: String) throws(JournalError) -> Bool {
    keys[Array(key.utf8)] != nil
  }

  /// Writes each write whose epoch is the key's and whose entries follow its last, in one step
  /// (see `KeyStore/write(_:)`).
  public func write(_ writes: [KeyWrite]) -> [JournalError?] {
    return writes.map { write in
      let name = Array(write.key.utf8)
      var stored = keys[name] ?? Key(epoch: write.epoch == 1 ? 1 : 0)
      guard stored.epoch == write.epoch else {
        return .heldElsewhere(key: write.key, "claimed at epoch \(stored.epoch), written at \(write.epoch)")
      }
      var last = stored.entries.last?.sequence ?? stored.snapshot?.sequence ?? 0
      for entry in write.entries {
        guard entry.sequence == last + 1 else {
          return .heldElsewhere(key: write.key, "entry \(entry.sequence) written after \(last)")
        }
        last = entry.sequence
      }
      stored.entries += write.entries
      if let snapshot = write.snapshot {
        guard snapshot.sequence <= last else {
          return JournalError(
            "key \(write.key): a snapshot of entry \(snapshot.sequence) after the last, \(last)")
        }
        stored.snapshot = snapshot
        stored.entries.removeAll { $0.sequence <= snapshot.sequence }
      }
      stored.reminder = write.reminder
      keys[name] = stored
      return nil
    }
  }

  /// The keys whose reminders are due by `date`, ordered by due time and then by key (see
  /// `KeyStore/reminders(dueBy:after:limit:)`).
  public func reminders(dueBy date: Date, after: StoredReminder?, limit: Int) throws(JournalError)
    -> [StoredReminder]
  {
    var due: [StoredReminder] = []
    for (name, key) in keys {
      if let reminder = key.reminder, reminder <= date {
        let listed = StoredReminder(key: String(decoding: name, as: UTF8.self), due: reminder)
        if let after, !Self.precedes(after, listed) { continue }
        due.append(listed)
      }
    }
    return Array(due.sorted(by: Self.precedes).prefix(max(0, limit)))
  }

  /// The store's order of reminders: by due time, then by key.
  private static func precedes(_ first: StoredReminder, _ second: StoredReminder) -> Bool {
    (first.due, first.key) < (second.due, second.key)
  }

  /// The node that claimed `key` last, if any claimed it.
  public func owner(of key: String) -> String? {
    keys[Array(key.utf8)]?.owner
  }
}
