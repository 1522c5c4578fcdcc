import DripperTesting
import Foundation
import Testing

@testable import Dripper

func storeHost(
  _ store: some KeyStore, node: String = "a", clock: TestClock = TestClock(), snapshotEvery: Int = 3,
  schema: JournalSchema<Account.State, Account.Action> = .initial,
  start: Date = Date(timeIntervalSince1970: 1_800_000_000),
  owns: @escaping @Sendable (String) -> Bool = { _ in true }
) throws -> StationHost<String, Account> {
  try StationHost(
    storage: .store(
      store, codec: .json, schema: schema, snapshotEvery: snapshotEvery, node: node, owns: owns),
    lifetime: HostLifetime(idleAfter: .seconds(60), time: .controlled(by: clock, startingAt: start))
  ) { _ in
    Account.State()
  } dripper: { _ in
    Account()
  }
}

/// `a` writes key `k`, `b` claims and writes it: `a`'s next pour is refused as held elsewhere.
func expectTheLastClaimWrites(_ a: StationHost<String, Account>, _ b: StationHost<String, Account>)
  async throws
{
  _ = try await a.pour(.deposit(1), to: "k", id: "a1")
  _ = try await b.pour(.deposit(10), to: "k", id: "b1")
  do {
    _ = try await a.pour(.deposit(100), to: "k", id: "a2")
    Issue.record("the first owner wrote after the second claimed the key")
  } catch {
    guard case .storage(_, let journal) = error else { throw error }
    #expect(journal.isHeldByAnotherProcess, "\(journal)")
  }
}

/// A store that keeps entries and ignores epochs: what the conformance suite must catch.
private actor UnfencedStore: KeyStore {
  var entries: [String: [StoredEntry]] = [:]

  func claim(_ key: String, owner: String) -> StoredKey {
    StoredKey(epoch: 1, entries: entries[key] ?? [])
  }
  func exists(_ key: String) -> Bool { entries[key] != nil }
  func write(_ writes: [KeyWrite]) -> [JournalError?] {
    for write in writes { entries[write.key, default: []] += write.entries }
    return writes.map { _ in nil }
  }
  func reminders(dueBy date: Date, after: StoredReminder?, limit: Int) -> [StoredReminder] { [] }
}

@Suite struct StationHostStoreTests {
  /// The in-memory store keeps every promise of the suite; a store that ignores epochs is caught.
  @Test func theConformanceSuiteHoldsForTheReferenceStoreAndCatchesAnUnfencedOne() async {
    #expect(await KeyStoreConformance.failures(of: InMemoryKeyStore()) == [])
    let failures = await KeyStoreConformance.failures(of: UnfencedStore())
    for check in ["epochs fence writes", "two first writes", "a sequence twice", "snapshot"] {
      #expect(failures.contains { $0.hasPrefix(check + ":") }, "\(check) not caught: \(failures)")
    }
  }

  /// A key kept in a store comes back in the next host, its request ids with it: a retry through
  /// the new host is answered with the first receipt, not applied again.
  @Test func aKeyComesBackInTheNextHostWithItsRequestIds() async throws {
    let store = InMemoryKeyStore()
    let first: PourReceipt
    do {
      let host = try storeHost(store)
      for amount in [5, 7, 11, 13] { await host.pour(.deposit(amount), to: "alice").finish() }
      first = try await host.pour(.withdraw(2), to: "alice", id: "r1")
      await host.close()
    }
    let host = try storeHost(store, node: "b")
    let retry = try await host.pour(.withdraw(2), to: "alice", id: "r1")
    #expect(retry.sequence == first.sequence)
    #expect(retry.duplicate)
    #expect(try await host.state(of: "alice").balance == 34)
    #expect(try await host.exists("alice"))
    #expect(try await !host.exists("bob"))
    _ = try await host.state(of: "bob")
    #expect(try await !store.exists("bob"), "a read wrote the key")
    await host.close()
    #expect(await store.owner(of: "alice") == "b")
  }

  /// Two hosts that both believe they hold a key: the one that claimed it last writes it, the
  /// other's pour is refused as held elsewhere, and the key's history does not fork.
  @Test func twoOwnersOfAKeyNeverBothWriteIt() async throws {
    let store = InMemoryKeyStore()
    let a = try storeHost(store, node: "a")
    let b = try storeHost(store, node: "b")
    try await expectTheLastClaimWrites(a, b)
    _ = try await b.pour(.deposit(1_000), to: "k", id: "b2")
    #expect(try await b.state(of: "k").log == ["+1", "+10", "+1000"])
    await a.close()
    await b.close()
    let reader = try storeHost(store, node: "c")
    #expect(try await reader.state(of: "k").balance == 1_011)
    await reader.close()
  }

  /// A node that dies with a reminder set leaves it to the store: another node that owns the key
  /// fires it when due, once; a node that does not own it leaves it.
  @Test func aDeadNodesReminderFiresOnAnotherNode() async throws {
    let store = InMemoryKeyStore()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    do {
      // Node a sets the reminder and dies: its host is dropped unclosed.
      let a = try storeHost(store, node: "a", start: start)
      _ = try await a.pour(.expireAt(start.addingTimeInterval(100)), to: "alice", id: "set")
    }
    let clock = TestClock()
    let other = try storeHost(store, node: "c", clock: clock, start: start, owns: { _ in false })
    let b = try storeHost(store, node: "b", clock: clock, start: start)
    await clock.advance(by: .seconds(150))
    await b.settle()
    await b.finish("alice")
    #expect(try await b.state(of: "alice").expired)
    #expect(b.counts.remindersFired == 1)
    await other.settle()
    #expect(other.counts.remindersFired == 0)
    await b.close()
    await other.close()
    #expect(await store.owner(of: "alice") == "b")
  }
}

extension StationHostStoreTests {
  /// A key this node owns is due after more than a page of other nodes' keys due before it (keys
  /// it does not fire): a sweep reads past them and fires it. (It read only the earliest 1,000 due
  /// and never reached it.)
  @Test func aReminderDueAfterAPageOfOtherNodesKeysFires() async throws {
    let store = InMemoryKeyStore()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let others = (0..<1_500).map { "other-\($0)" }
    let results = await store.write(
      others.map {
        KeyWrite(
          key: $0, epoch: 1, entries: [StoredEntry(sequence: 1, schema: 1, bytes: Array("x".utf8))],
          reminder: start.addingTimeInterval(10))
      })
    #expect(results.allSatisfy { $0 == nil })
    do {
      let a = try storeHost(store, node: "a", start: start)
      _ = try await a.pour(.expireAt(start.addingTimeInterval(100)), to: "alice", id: "set")
    }
    let clock = TestClock()
    let b = try storeHost(store, node: "b", clock: clock, start: start, owns: { $0 == "alice" })
    await clock.advance(by: .seconds(150))
    await b.settle()
    await b.finish("alice")
    #expect(try await b.state(of: "alice").expired)
    #expect(b.counts.remindersFired == 1)
    await b.close()
  }
}

/// The reference store, whose claims and writes fail while `down` is set (a database restarting)
/// and whose writes wait while it is held (a store slower than the reductions).
private final class TroubledStore: KeyStore {
  let base = InMemoryKeyStore()
  let down = LockIsolated(false)
  private let gate = LockIsolated<(held: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

  func hold() { gate.withValue { $0.held = true } }

  func release() {
    let waiting = gate.withValue { gate in
      defer { gate = (false, []) }
      return gate.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  func claim(_ key: String, owner: String) async throws(JournalError) -> StoredKey {
    if down.value { throw JournalError("the store is down") }
    return try await base.claim(key, owner: owner)
  }
  func exists(_ key: String) async throws(JournalError) -> Bool { try await base.exists(key) }
  func write(_ writes: [KeyWrite]) async -> [JournalError?] {
    await withCheckedContinuation { continuation in
      let passes = gate.withValue { gate -> Bool in
        if gate.held { gate.waiting.append(continuation) }
        return !gate.held
      }
      if passes { continuation.resume() }
    }
    if down.value { return writes.map { _ in JournalError("the store is down") } }
    return await base.write(writes)
  }
  func reminders(dueBy date: Date, after: StoredReminder?, limit: Int) async throws(JournalError)
    -> [StoredReminder]
  {
    try await base.reminders(dueBy: date, after: after, limit: limit)
  }
}

@Suite struct StationHostStoreOutageTests {
  /// A store down for a while: pours fail clearly, resume once it is back, and the host closes.
  @Test func poursFailWhileTheStoreIsDownResumeAfterAndTheHostCloses() async throws {
    let store = TroubledStore()
    let host = try StationHost<String, Account>(
      storage: .store(store, codec: .json, snapshotEvery: 3),
      lifetime: HostLifetime(retryFailedAfter: .milliseconds(1)),
      observer: StationHostObserver(diagnostic: { _, _ in })
    ) { _ in
      Account.State()
    } dripper: { _ in
      Account()
    }
    for amount in 1...5 { _ = try await host.pour(.deposit(amount), to: "k\(amount % 2)", id: "\(amount)") }
    store.down.setValue(true)
    for amount in 6...9 {
      await #expect(throws: HostError.self) {
        try await host.pour(.deposit(amount), to: "k\(amount % 2)", id: "\(amount)")
      }
    }
    store.down.setValue(false)
    var resumed = 0
    for amount in 10...40 {
      if (try? await host.pour(.deposit(amount), to: "k\(amount % 2)", id: "\(amount)")) != nil {
        resumed += 1
      }
    }
    #expect(resumed > 20)
    await host.close()
  }
}

@Suite struct StationHostStoreReminderHintTests {
  /// A snapshot written while later entries wait keeps the reminder those entries set: a node
  /// dying right after leaves the store saying when to wake the key. (The snapshot made the hint
  /// exact for its own state, later than the waiting entry's reminder, which was then lost.)
  @Test func aSnapshotKeepsTheReminderOfAnEntryAfterIt() async throws {
    let store = TroubledStore()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let host = try storeHost(store, snapshotEvery: 3, start: start)
    _ = try await host.pour(.deposit(1), to: "k", id: "claim")
    store.hold()
    // Entry 2 is held in the store; 3 (a far reminder, and a snapshot) and 4 (a near one) wait.
    host.pour(.deposit(1), to: "k")
    host.pour(.expireAt(start.addingTimeInterval(1_000)), to: "k")
    host.pour(.expireAt(start.addingTimeInterval(100)), to: "k")
    await host.table.withLock { $0.resident("k") }?.station.reducePending()
    store.release()
    await host.finish("k")
    let due = try await store.reminders(dueBy: start.addingTimeInterval(200), limit: 10)
    #expect(due.map(\.key) == ["k"], "the store lost the near reminder: \(due)")
    await host.close()
    let after = try await store.reminders(dueBy: start.addingTimeInterval(2_000), limit: 10)
    #expect(after == [StoredReminder(key: "k", due: start.addingTimeInterval(100))], "passivated: \(after)")
  }

  /// A key a newer program wrote (a newer JournalSchema version) is refused with one line and left
  /// as it is; the newer program reads it again.
  @Test func aKeyANewerSchemaWroteIsRefusedAndLeftAsItIs() async throws {
    let store = InMemoryKeyStore()
    let newer = JournalSchema<Account.State, Account.Action>(
      version: 2, migrateState: { _, _ in Account.State() }, migrateAction: { _, _ in .deposit(0) })
    do {
      let host = try storeHost(store, schema: newer)
      for amount in 1...4 { _ = try await host.pour(.deposit(amount), to: "k", id: "\(amount)") }
      await host.close()
    }
    let older = try storeHost(store, node: "old")
    do {
      _ = try await older.pour(.deposit(100), to: "k", id: "old")
      Issue.record("an older program wrote a key a newer one made")
    } catch {
      #expect("\(error)".contains("newer than this program's 1"), "\(error)")
      #expect(!"\(error)".contains("\n"))
    }
    await older.close()
    let again = try storeHost(store, node: "new", schema: newer)
    #expect(try await again.state(of: "k").balance == 10)
    await again.close()
  }
}
