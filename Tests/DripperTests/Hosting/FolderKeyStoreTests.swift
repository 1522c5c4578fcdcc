import DripperTesting
import Foundation
import Testing

@testable import Dripper

private func bytes(at path: String) -> [UInt8] {
  (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

private func entry(_ sequence: UInt64) -> StoredEntry {
  StoredEntry(sequence: sequence, schema: 1, bytes: Array("entry \(sequence)".utf8))
}

@Suite struct FolderKeyStoreTests {
  /// The folder store keeps every promise the conformance suite checks, as PostgreSQL's does.
  @Test func theFolderStorePassesTheConformanceSuite() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    #expect(await KeyStoreConformance.failures(of: try FolderKeyStore(folder: folder)) == [])
  }

  /// Two stores on one folder, as two processes' would be: the host that claimed a key last
  /// writes it, the other's pour is refused as held elsewhere, and nothing forks. A host on a
  /// third store reads the key back, its snapshots and request ids with it.
  @Test func twoHostsOnOneFolderNeverBothWriteAKey() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let a = try storeHost(FolderKeyStore(folder: folder), node: "a")
    let b = try storeHost(FolderKeyStore(folder: folder), node: "b")
    try await expectTheLastClaimWrites(a, b)
    for amount in [1_000, 2_000, 3_000, 4_000] { await b.pour(.deposit(amount), to: "k").finish() }
    let retried = try await b.pour(.withdraw(5), to: "k", id: "b2")
    await a.close()
    await b.close()
    let reader = try storeHost(FolderKeyStore(folder: folder), node: "c")
    #expect(try await reader.state(of: "k").balance == 10_006)
    let again = try await reader.pour(.withdraw(5), to: "k", id: "b2")
    #expect(again.duplicate && again.sequence == retried.sequence)
    #expect(try await reader.state(of: "k").balance == 10_006)
    await reader.close()
  }

  /// A write cut off by a crash (part of its record at the end of the log) was never
  /// acknowledged: the key reads as before, and the next write takes its place.
  @Test func aTornWriteAtTheEndIsCutOff() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let store = try FolderKeyStore(folder: folder)
    let claimed = try await store.claim("k", owner: "a")
    #expect(
      await store.write([KeyWrite(key: "k", epoch: claimed.epoch, entries: [entry(1), entry(2)])]) == [nil])
    let record = FolderKeyLog.writeRecord(KeyWrite(key: "k", epoch: claimed.epoch, entries: [entry(3)]))
    var damaged = record
    damaged[damaged.count - 1] ^= 0xFF
    for torn in [Array(record.prefix(7)), Array(record.dropLast(3)), damaged] {
      let handle = try #require(FileHandle(forWritingAtPath: store.logPath(of: "k")))
      try handle.seekToEnd()
      try handle.write(contentsOf: torn)
      try handle.close()
      let read = try await store.claim("k", owner: "a")
      #expect(read.entries.map(\.sequence) == [1, 2])
      #expect(try await store.exists("k"))
    }
    let last = try await store.claim("k", owner: "a")
    #expect(await store.write([KeyWrite(key: "k", epoch: last.epoch, entries: [entry(3)])]) == [nil])
    #expect(try await store.claim("k", owner: "a").entries == [entry(1), entry(2), entry(3)])
  }

  /// A log damaged in the middle, a log of a later version, and a link where a key's folder or
  /// log should be are each refused in one line and left as they are.
  @Test func aLogItCannotTrustIsRefusedAndLeftAsItIs() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let store = try FolderKeyStore(folder: folder)
    for key in ["damaged", "newer", "linked"] {
      let claimed = try await store.claim(key, owner: "a")
      _ = await store.write([KeyWrite(key: key, epoch: claimed.epoch, entries: [entry(1)])])
      _ = await store.write([KeyWrite(key: key, epoch: claimed.epoch, entries: [entry(2)])])
    }
    var log = bytes(at: store.logPath(of: "damaged"))
    log[FolderKeyLog.header.count + 20] ^= 0xFF
    try Data(log).write(to: URL(fileURLWithPath: store.logPath(of: "damaged")))
    let newer = Array("dripper key log 2\n".utf8) + bytes(at: store.logPath(of: "newer")).dropFirst(18)
    try Data(newer).write(to: URL(fileURLWithPath: store.logPath(of: "newer")))
    let elsewhere = folder + "/elsewhere"
    try FileManager.default.moveItem(atPath: store.logPath(of: "linked"), toPath: elsewhere)
    try FileManager.default.createSymbolicLink(
      atPath: store.logPath(of: "linked"), withDestinationPath: elsewhere)
    let kept = bytes(at: elsewhere)

    let expected = [
      "damaged": "the file is damaged", "newer": "version 2, which this Dripper", "linked": "log",
    ]
    for (key, message) in expected {
      let before = bytes(at: store.logPath(of: key))
      do {
        _ = try await store.claim(key, owner: "a")
        Issue.record("\(key) was claimed")
      } catch {
        #expect(error.message.contains(message), "\(error.message)")
        #expect(!error.message.contains("\n"))
      }
      #expect(await store.write([KeyWrite(key: key, epoch: 2, entries: [entry(3)])]).first??.message != nil)
      #expect(bytes(at: store.logPath(of: key)) == before, "\(key) changed")
    }
    #expect(bytes(at: elsewhere) == kept)
  }

  /// A snapshot writes the log again, renamed over the old one: the log keeps its mode.
  @Test func aSnapshotKeepsTheLogsMode() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let store = try FolderKeyStore(folder: folder)
    let claimed = try await store.claim("k", owner: "a")
    _ = await store.write([KeyWrite(key: "k", epoch: claimed.epoch, entries: [entry(1), entry(2)])])
    let path = store.logPath(of: "k")
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
    let snapshot = StoredSnapshot(sequence: 2, bytes: Array("at 2".utf8))
    #expect(
      await store.write([KeyWrite(key: "k", epoch: claimed.epoch, entries: [entry(3)], snapshot: snapshot)])
        == [nil])
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o640)
    let read = try await store.claim("k", owner: "a")
    #expect(read.snapshot == snapshot && read.entries == [entry(3)])
  }

  /// A reminder's file whose key no longer names that reminder (a crash between the two writes)
  /// is not listed, and is removed; the key's own reminder is listed.
  @Test func aStaleReminderFileIsSkippedAndRemoved() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let store = try FolderKeyStore(folder: folder)
    let due = Date(timeIntervalSince1970: 1_000)
    let claimed = try await store.claim("k", owner: "a")
    _ = await store.write([KeyWrite(key: "k", epoch: claimed.epoch, entries: [entry(1)], reminder: due)])
    let files = try FileManager.default.subpathsOfDirectory(atPath: store.remindersPath).sorted()
    let name = try #require(files.last?.split(separator: "/").last)
    #expect(files == [FolderKeyStore.bucket(of: name), FolderKeyStore.bucket(of: name) + "/" + name])
    // The same key, due earlier.
    let staleName = "bf" + String(name.dropFirst(2))
    #expect(store.writeReminder(named: staleName, key: "k") == nil)
    let listed = try await store.reminders(dueBy: Date(timeIntervalSince1970: 2_000), limit: 10)
    #expect(listed == [StoredReminder(key: "k", due: due)])
    // The stale file is gone, and the folder it left empty with it.
    #expect(try FileManager.default.subpathsOfDirectory(atPath: store.remindersPath).sorted() == files)
  }
}

extension FolderKeyStoreTests {
  /// Many keys writing snapshots at once: a host waits for each on one of its storage threads, and
  /// the store must not need those same threads to do it. (On the host's pool, 300 keys held its
  /// 64 threads waiting, and the pours never finished.)
  @Test func manyKeysSnapshottingAtOnceAllFinish() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let host = try storeHost(FolderKeyStore(folder: folder), snapshotEvery: 1)
    let keys = (0..<300).map { "k\($0)" }
    // Raced against a bounded timeout, outside any group: a group would wait for stuck pours.
    let (outcome, report) = AsyncStream.makeStream(of: Bool.self)
    let pours = Task {
      await withTaskGroup(of: Void.self) { group in
        for key in keys {
          group.addTask {
            for amount in 1...3 { _ = try? await host.pour(.deposit(amount), to: key, id: "\(amount)") }
          }
        }
      }
      report.yield(true)
    }
    let timeout = Task {
      try await Task.sleep(for: .seconds(60))
      report.yield(false)
    }
    let finished = await outcome.first { _ in true } ?? false
    timeout.cancel()
    _ = pours
    #expect(finished, "pours were still waiting after 60 s")
    guard finished else { return }
    for key in keys.prefix(10) { #expect(try await host.state(of: key).balance == 6) }
    await host.close()
  }
}

extension FolderKeyStoreTests {
  /// A store checks a write against what it last saw of the key's log while the log is as long
  /// and begins alike. Another store's claim and snapshot write the log again to the very length
  /// the first store saw: the first store's write at its old epoch is still refused.
  @Test func aLogWrittenAgainToTheSameLengthIsReadAgain() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let a = try FolderKeyStore(folder: folder)
    let b = try FolderKeyStore(folder: folder)
    let first = StoredEntry(sequence: 1, schema: 1, bytes: Array("one".utf8))
    #expect(await a.write([KeyWrite(key: "k", epoch: 1, entries: [first])]) == [nil])
    let length = bytes(at: a.logPath(of: "k")).count
    let claimed = try await b.claim("k", owner: "b")
    // A write of a snapshot alone is 8 bytes shorter than one of an entry: its bytes make it up.
    let snapshot = StoredSnapshot(sequence: 1, bytes: Array("one".utf8) + Array(repeating: 0x2E, count: 8))
    #expect(await b.write([KeyWrite(key: "k", epoch: claimed.epoch, snapshot: snapshot)]) == [nil])
    #expect(bytes(at: a.logPath(of: "k")).count == length, "the log was not written again to the same length")
    let late = await a.write([KeyWrite(key: "k", epoch: 1, entries: [entry(2)])])
    #expect(late.first??.isHeldByAnotherProcess == true, "\(late)")
    let read = try await b.claim("k", owner: "b")
    #expect(read.snapshot == snapshot && read.entries.isEmpty)
  }
}

extension FolderKeyStoreTests {
  /// What a store keeps of a key it read whole is what a write checks, never the entries or the
  /// snapshot: it keeps a summary for many keys. (It kept every key's entries as they were read.)
  @Test func whatAStoreKeepsOfAKeyHoldsNoEntries() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let store = try FolderKeyStore(folder: folder)
    let writer = try FolderKeyStore(folder: folder)
    _ = await writer.write([KeyWrite(key: "k", epoch: 1, entries: (1...10).map(entry))])
    let claimed = try await store.claim("k", owner: "a")
    #expect(claimed.entries.count == 10)
    let reader = try FolderKeyStore(folder: folder)
    #expect(try await reader.exists("k"))
    for kept in [store, writer, reader] {
      let place = kept.place(of: "k")
      let summary = try #require(place.summaries[place.folder])
      #expect(summary.entries.isEmpty && summary.snapshot == nil && !summary.isWhole)
      #expect(summary.last == 10)
    }
  }
}

extension FolderKeyStoreTests {
  /// A key whose log cannot be read is listed with its reminder, as its file names it, and the
  /// other keys' reminders with it: the host that wakes it says why it fails. (The listing threw,
  /// and no key's reminder fired.)
  @Test func aKeyItCannotReadDoesNotStopTheReminders() async throws {
    let scratch = ScratchDirectory()
    let folder = scratch.file("store")
    let store = try FolderKeyStore(folder: folder)
    let dues = [Date(timeIntervalSince1970: 1_000.25), Date(timeIntervalSince1970: -5)]
    for (key, due) in zip(["damaged", "fine"], dues) {
      _ = await store.write([KeyWrite(key: key, epoch: 1, entries: [entry(1)], reminder: due)])
    }
    let path = store.logPath(of: "damaged")
    let newer = Array("dripper key log 2\n".utf8) + bytes(at: path).dropFirst(18)
    try Data(newer).write(to: URL(fileURLWithPath: path))
    let listed = try await FolderKeyStore(folder: folder).reminders(
      dueBy: Date(timeIntervalSince1970: 2_000), limit: 10)
    #expect(
      listed == [StoredReminder(key: "fine", due: dues[1]), StoredReminder(key: "damaged", due: dues[0])])
  }
}

extension FolderKeyStoreTests {
  /// A store and a host's own folder are never one folder: each refuses the other's, in one line,
  /// and leaves it as it is; a store of a later layout is refused too.
  @Test func aStoreAndAHostsFolderRefuseEachOther() async throws {
    let scratch = ScratchDirectory()
    let (hostFolder, storeFolder) = (scratch.file("host"), scratch.file("store"))
    let host = try StationHost<String, Account>(storage: .folder(hostFolder, codec: .json)) { _ in
      Account.State()
    } dripper: { _ in
      Account()
    }
    await host.pour(.deposit(1), to: "k").finish()
    await host.close()
    let hostFiles = try FileManager.default.subpathsOfDirectory(atPath: hostFolder).sorted()
    #expect(throws: JournalError.self) { try FolderKeyStore(folder: hostFolder) }
    #expect(try FileManager.default.subpathsOfDirectory(atPath: hostFolder).sorted() == hostFiles)

    _ = try FolderKeyStore(folder: storeFolder)
    let refusal = #expect(throws: HostError.self) {
      try StationHost<String, Account>(storage: .folder(storeFolder, codec: .json)) { _ in
        Account.State()
      } dripper: { _ in
        Account()
      }
    }
    #expect(refusal.map { "\($0)".contains("FolderKeyStore") } == true, "\(String(describing: refusal))")
    // A later layout, and the first (reminders in one folder, never released).
    for layout in [3, 1] {
      try Data("dripper key store \(layout)\n".utf8).write(
        to: URL(fileURLWithPath: storeFolder + "/" + FolderKeyStore.marker))
      let other = #expect(throws: JournalError.self) { try FolderKeyStore(folder: storeFolder) }
      #expect(other?.message.contains("another layout") == true)
    }
  }
}

extension FolderKeyStoreTests {
  /// A listing of the reminders due reads the names of those due within days of its time, never
  /// those of reminders due later: with 50, 100 and 200 keys due a month on, a listing of the ten
  /// due now reads ten names each time. (Each sweep read the name of every reminder.)
  @Test func listingTheRemindersDueReadsNoneDueLater() async throws {
    let scratch = ScratchDirectory()
    let store = try FolderKeyStore(folder: scratch.file("store"))
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func write(_ keys: Range<Int>, prefix: String, due: (Int) -> Date) async throws {
      let writes = keys.map {
        KeyWrite(key: "\(prefix)\($0)", epoch: 1, entries: [entry(1)], reminder: due($0))
      }
      #expect(await store.write(writes).allSatisfy { $0 == nil })
    }
    try await write(0..<10, prefix: "due-") { now.addingTimeInterval(-Double($0)) }
    var read: [Int] = []
    var later = 0
    for count in [50, 100, 200] {
      try await write(later..<count, prefix: "later-") { now.addingTimeInterval(30 * 86_400 + Double($0)) }
      later = count
      let listing = try store.remindersNow(dueBy: now, after: nil, limit: 100).get()
      #expect(listing.reminders.map(\.key).sorted() == (0..<10).map { "due-\($0)" }.sorted())
      read.append(listing.namesRead)
    }
    #expect(read == [10, 10, 10])
    // All of them, a month on.
    let all = try await store.reminders(dueBy: now.addingTimeInterval(40 * 86_400), limit: 1_000)
    #expect(all.count == 210)
  }
}

extension FolderKeyStoreTests {
  /// Reminders moved back and forth between two folders while listings remove the folders they
  /// find empty: every write succeeds, and every key's reminder is listed where it is now. A
  /// listing removes a folder only while no writer holds `reminders/`. (Removed between a
  /// writer's making it and writing its file, a folder failed the write, 1 run in 5; retried
  /// three times, it still failed 3 runs in 20 with both cores busy.)
  @Test func remindersMovedWhileListingsRemoveEmptyFoldersAreAllKept() async throws {
    let scratch = ScratchDirectory()
    let store = try FolderKeyStore(folder: scratch.file("store"))
    // Two due times in two folders, both in the past: every listing reads both.
    let dues = [Date(timeIntervalSince1970: 1_000_000), Date(timeIntervalSince1970: 2_000_000)]
    #expect(
      FolderKeyStore.bucket(of: FolderKeyStore.reminderName(due: dues[0], place: ""))
        != FolderKeyStore.bucket(of: FolderKeyStore.reminderName(due: dues[1], place: "")))
    let keys = (0..<8).map { "k\($0)" }
    let lister = Task.detached {
      while !Task.isCancelled {
        _ = try? await store.reminders(dueBy: Date(timeIntervalSince1970: 3_000_000), limit: 100)
      }
    }
    var failures: [JournalError] = []
    // Every key moves at once: the folder they left is empty, and a listing removes it as the
    // next round writes into it.
    for round in 1...100 {
      let writes = keys.map {
        KeyWrite(key: $0, epoch: 1, entries: [entry(UInt64(round))], reminder: dues[round % 2])
      }
      failures += await store.write(writes).compactMap { $0 }
    }
    lister.cancel()
    _ = await lister.value
    #expect(failures.isEmpty, "\(failures)")
    let listed = try await store.reminders(dueBy: Date(timeIntervalSince1970: 3_000_000), limit: 100)
    #expect(listed.sorted { $0.key < $1.key } == keys.map { StoredReminder(key: $0, due: dues[0]) })
  }
}
