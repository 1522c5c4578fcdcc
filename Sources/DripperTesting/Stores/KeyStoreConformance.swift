public import Dripper

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The promises of a `KeyStore`, checked against a store: what every store Dripper ships passes,
/// and what a store of your own must pass before a host bets its keys on it.
///
/// ```swift
/// @Test func conformance() async {
///   await KeyStoreConformance.check(PostgresKeyStore(client: client))
/// }
/// ```
///
/// Each check uses keys of its own, named with a prefix random to the run, so a store shared with
/// other tests, or kept from an earlier run, is checked as it is. A failure is reported through
/// the test framework running the test, named by its check.
public enum KeyStoreConformance {
  /// The names of the checks, in the order ``check(_:only:fileID:filePath:line:column:)`` runs them.
  public static let checks = [
    "claim of a new key", "entries in order", "snapshot", "epochs fence writes", "two first writes",
    "a sequence twice", "a refused write leaves nothing", "writes of many keys at once", "reminders",
    "reminders page by page", "hostile keys", "bytes as they are", "many keys at once",
  ]

  /// Runs every check (or those named in `only`) against `store`, reporting each failure.
  public static func check(
    _ store: some KeyStore, only: Set<String>? = nil, fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    let failures = await failures(of: store, only: only)
    for failure in failures {
      FailureReporter.automatic.report(failure, fileID, filePath, line, column)
    }
  }

  /// The failures of `store`, one line each, named by its check: for tests of the suite.
  public static func failures(of store: some KeyStore, only: Set<String>? = nil) async -> [String] {
    var failures: [String] = []
    let prefix = "conformance-\(UInt32.random(in: .min ... .max))-"
    for name in checks where only?.contains(name) ?? true {
      let run = Run(store: store, prefix: prefix + "\(checks.firstIndex(of: name) ?? 0)-")
      do {
        try await run.run(name)
      } catch {
        run.failures.append("threw \(error)")
      }
      failures += run.failures.map { "\(name): \($0)" }
    }
    return failures
  }

  private final class Run<Store: KeyStore> {
    let store: Store
    let prefix: String
    var failures: [String] = []

    init(store: Store, prefix: String) {
      self.store = store
      self.prefix = prefix
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
      if !condition { failures.append(message()) }
    }

    func entry(_ sequence: UInt64, _ text: String = "") -> StoredEntry {
      StoredEntry(sequence: sequence, schema: 1, bytes: Array("\(sequence) \(text)".utf8))
    }

    func sequences(_ stored: StoredKey) -> [UInt64] {
      stored.entries.map(\.sequence).filter { $0 > (stored.snapshot?.sequence ?? 0) }
    }

    /// Writes one write, and says whether it was refused as held elsewhere.
    func write(_ write: KeyWrite) async -> JournalError? {
      await store.write([write]).first ?? JournalError("no result")
    }

    func run(_ name: String) async throws(JournalError) {
      let key = prefix + "k"
      let now = Date(timeIntervalSince1970: 2_000_000_000)
      switch name {
      case "claim of a new key":
        let claimed = try await store.claim(key, owner: "a")
        expect(claimed.isEmpty, "a new key came back with \(claimed.entries.count) entries")
        expect(claimed.epoch == 1, "a new key's epoch is \(claimed.epoch), not 1")
        expect(try await !store.exists(key), "a claim of a new key wrote it")

      case "entries in order":
        let first = try await store.claim(key, owner: "a")
        expect(
          await write(KeyWrite(key: key, epoch: first.epoch, entries: [entry(1), entry(2)])) == nil,
          "write 1…2")
        expect(await write(KeyWrite(key: key, epoch: first.epoch, entries: [entry(3)])) == nil, "write 3")
        expect(try await store.exists(key), "a key written does not exist")
        let again = try await store.claim(key, owner: "a")
        expect(sequences(again) == [1, 2, 3], "entries came back as \(sequences(again))")
        expect(again.entries.map(\.bytes) == [entry(1), entry(2), entry(3)].map(\.bytes), "entries changed")
        expect(again.epoch > first.epoch, "a second claim's epoch \(again.epoch) is not above \(first.epoch)")

      case "snapshot":
        let claimed = try await store.claim(key, owner: "a")
        _ = await write(KeyWrite(key: key, epoch: claimed.epoch, entries: [entry(1), entry(2), entry(3)]))
        let snapshot = StoredSnapshot(sequence: 2, bytes: Array("state at 2".utf8))
        expect(
          await write(KeyWrite(key: key, epoch: claimed.epoch, snapshot: snapshot)) == nil, "the snapshot")
        expect(await write(KeyWrite(key: key, epoch: claimed.epoch, entries: [entry(4)])) == nil, "write 4")
        let again = try await store.claim(key, owner: "a")
        expect(again.snapshot == snapshot, "the snapshot came back as \(String(describing: again.snapshot))")
        expect(sequences(again) == [3, 4], "entries after the snapshot came back as \(sequences(again))")

      case "epochs fence writes":
        let a = try await store.claim(key, owner: "a")
        _ = await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(1)]))
        let b = try await store.claim(key, owner: "b")
        let late = await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(2, "a")]))
        expect(
          late?.isHeldByAnotherProcess == true, "a write at an old epoch was \(String(describing: late))")
        expect(
          await write(KeyWrite(key: key, epoch: b.epoch, entries: [entry(2, "b")])) == nil,
          "the new owner's write")
        let read = try await store.claim(key, owner: "c")
        expect(read.entries.last?.bytes == entry(2, "b").bytes, "the key forked: \(sequences(read))")

      case "two first writes":
        let a = try await store.claim(key, owner: "a")
        let b = try await store.claim(key, owner: "b")
        expect(
          await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(1, "a")])) == nil, "the first write")
        let second = await write(KeyWrite(key: key, epoch: b.epoch, entries: [entry(1, "b")]))
        expect(
          second?.isHeldByAnotherProcess == true, "a second first write was \(String(describing: second))")
        let read = try await store.claim(key, owner: "c")
        expect(
          read.entries.map(\.bytes) == [entry(1, "a").bytes], "the key forked: \(read.entries.count) entries")

      case "a sequence twice":
        let a = try await store.claim(key, owner: "a")
        _ = await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(1), entry(2)]))
        let twice = await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(2, "again")]))
        expect(
          twice?.isHeldByAnotherProcess == true, "entry 2 written twice was \(String(describing: twice))")
        let gap = await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(4)]))
        expect(gap != nil, "entry 4 after 2 was written")
        let read = try await store.claim(key, owner: "a")
        expect(
          sequences(read) == [1, 2] && read.entries.last?.bytes == entry(2).bytes,
          "entries: \(sequences(read))")

      case "a refused write leaves nothing":
        let a = try await store.claim(key, owner: "a")
        _ = await write(KeyWrite(key: key, epoch: a.epoch, entries: [entry(1)], reminder: nil))
        _ = try await store.claim(key, owner: "b")
        let refused = await write(
          KeyWrite(
            key: key, epoch: a.epoch, entries: [entry(2)], snapshot: StoredSnapshot(sequence: 2, bytes: [1]),
            reminder: now))
        expect(refused != nil, "a write at an old epoch was kept")
        let read = try await store.claim(key, owner: "b")
        expect(read.snapshot == nil && sequences(read) == [1], "a refused write left \(sequences(read))")
        let due = try await store.reminders(dueBy: now, limit: 10_000).map(\.key)
        expect(!due.contains(key), "a refused write left its reminder")

      case "writes of many keys at once":
        let (good, bad) = (key + "-good", key + "-bad")
        let g = try await store.claim(good, owner: "a")
        let b = try await store.claim(bad, owner: "a")
        _ = await write(KeyWrite(key: bad, epoch: b.epoch, entries: [entry(1)]))
        _ = try await store.claim(bad, owner: "b")
        let results = await store.write([
          KeyWrite(key: good, epoch: g.epoch, entries: [entry(1)]),
          KeyWrite(key: bad, epoch: b.epoch, entries: [entry(2)]),
        ])
        expect(results.count == 2, "\(results.count) results for 2 writes")
        expect(results.first.map { $0 == nil } ?? false, "the good write failed with the bad")
        expect(results.last.map { $0 != nil } ?? false, "the bad write was kept")
        expect(sequences(try await store.claim(good, owner: "a")) == [1], "the good write is missing")
        expect(sequences(try await store.claim(bad, owner: "a")) == [1], "the bad write left an entry")

      case "reminders":
        let keys = (0..<3).map { key + "-\($0)" }
        for (offset, name) in keys.enumerated() {
          let claimed = try await store.claim(name, owner: "a")
          _ = await write(
            KeyWrite(
              key: name, epoch: claimed.epoch, entries: [entry(1)],
              reminder: now.addingTimeInterval(Double(2 - offset) * 10)))
        }
        let all = try await store.reminders(dueBy: now.addingTimeInterval(20), limit: 10_000).filter {
          $0.key.hasPrefix(key)
        }
        expect(all.map(\.key) == keys.reversed(), "reminders came back as \(all.map(\.key))")
        let early = try await store.reminders(dueBy: now.addingTimeInterval(5), limit: 10_000).map(\.key)
        expect(early.contains(keys[2]) && !early.contains(keys[1]), "reminders due by a date: \(early)")
        let claimed = try await store.claim(keys[2], owner: "a")
        expect(claimed.reminder == now, "a claim's reminder is \(String(describing: claimed.reminder))")
        _ = await write(KeyWrite(key: keys[2], epoch: claimed.epoch, entries: [entry(2)], reminder: nil))
        let after = try await store.reminders(dueBy: now.addingTimeInterval(20), limit: 10_000).map(\.key)
        expect(!after.contains(keys[2]), "a reminder cleared is still listed")
        let limited = try await store.reminders(dueBy: now.addingTimeInterval(20), limit: 1)
        expect(limited.count == 1, "a limit of 1 listed \(limited.count)")

      case "reminders page by page":
        // Long past, so that few of a shared store's other keys come before them; four due at once.
        let base = now.addingTimeInterval(-1_000_000)
        let dues = [0, 5, 5, 5, 5, 9, 12].map { base.addingTimeInterval(Double($0)) }
        let keys = dues.indices.map { key + "-\($0)" }
        for (name, due) in zip(keys, dues) {
          let claimed = try await store.claim(name, owner: "a")
          _ = await write(KeyWrite(key: name, epoch: claimed.epoch, entries: [entry(1)], reminder: due))
        }
        var listed: [StoredReminder] = []
        var last: StoredReminder?
        for _ in 0..<10_000 {
          let page = try await store.reminders(dueBy: dues.last!, after: last, limit: 2)
          listed += page
          guard page.count == 2 else { break }
          last = page.last
        }
        let mine = listed.filter { $0.key.hasPrefix(key) }
        expect(
          mine.map(\.key).sorted() == keys.sorted() && mine.count == keys.count,
          "pages of 2 listed \(mine.map(\.key)) of \(keys)")
        expect(
          zip(listed, listed.dropFirst()).allSatisfy { $0.due <= $1.due },
          "pages of 2 went back in time")

      case "hostile keys":
        let texts = [
          "it's", "\"quoted\"", "nul\u{0}inside", "'; DROP TABLE entries; --", "é", "e\u{301}x", "A", "a",
          String(repeating: "k", count: 10_000), "%00", "\\", "",
        ].map { key + $0 }
        for (offset, text) in texts.enumerated() {
          let claimed = try await store.claim(text, owner: "a")
          expect(claimed.isEmpty, "key \(offset) came back with entries before it was written")
          let error = await write(KeyWrite(key: text, epoch: claimed.epoch, entries: [entry(1, "\(offset)")]))
          expect(error == nil, "key \(offset) was refused: \(String(describing: error))")
        }
        for (offset, text) in texts.enumerated() {
          let read = try await store.claim(text, owner: "a")
          expect(
            read.entries.map(\.bytes) == [entry(1, "\(offset)").bytes], "key \(offset) read another's entries"
          )
        }

      case "bytes as they are":
        let bytes = (0...255).map { UInt8($0) }
        let claimed = try await store.claim(key, owner: "a")
        let entry = StoredEntry(sequence: 1, schema: 7, bytes: bytes)
        let snapshot = StoredSnapshot(sequence: 1, bytes: bytes.reversed())
        _ = await write(KeyWrite(key: key, epoch: claimed.epoch, entries: [entry]))
        let read = try await store.claim(key, owner: "a")
        expect(read.entries == [entry], "an entry's bytes or schema changed")
        _ = await write(KeyWrite(key: key, epoch: read.epoch, snapshot: snapshot))
        expect(try await store.claim(key, owner: "a").snapshot == snapshot, "a snapshot's bytes changed")

      case "many keys at once":
        let names = (0..<50).map { key + "-\($0)" }
        let store = self.store
        let errors = await withTaskGroup(of: [JournalError?].self) { group in
          for name in names {
            group.addTask {
              guard let claimed = try? await store.claim(name, owner: "a") else {
                return [JournalError("claim")]
              }
              var errors: [JournalError?] = []
              for sequence in 1...10 as ClosedRange<UInt64> {
                let entry = StoredEntry(sequence: sequence, schema: 1, bytes: Array("\(sequence)".utf8))
                errors += await store.write([KeyWrite(key: name, epoch: claimed.epoch, entries: [entry])])
              }
              return errors
            }
          }
          return await group.reduce(into: []) { $0 += $1.compactMap { $0 } }
        }
        expect(errors.isEmpty, "\(errors.count) writes failed: \(errors.first.map(\.description) ?? "")")
        for name in names {
          let read = try await store.claim(name, owner: "a")
          expect(sequences(read) == Array(1...10), "\(name) came back with \(sequences(read))")
        }

      default:
        failures.append("no such check")
      }
    }
  }
}
