import Foundation
import Testing

@testable import Dripper

/// A host of accounts in a folder, on a test clock whose wall time starts at `start`.
private func folderHost(
  _ scratch: ScratchDirectory, clock: TestClock = TestClock(),
  start: Date = Date(timeIntervalSince1970: 1_800_000_000),
  node: String = "local", idleAfter: Duration? = .seconds(60), diagnostics: LockIsolated<[String]>? = nil
) throws -> StationHost<String, Account> {
  try StationHost(
    storage: .folder(scratch.path, codec: .json, node: node),
    lifetime: HostLifetime(idleAfter: idleAfter, time: .controlled(by: clock, startingAt: start)),
    observer: StationHostObserver(diagnostic: { key, diagnostic in
      diagnostics?.withValue { $0.append("\(key): \(diagnostic.message)") }
    })
  ) { _ in
    Account.State()
  } dripper: { _ in
    Account()
  }
}

@Suite struct StationHostStorageTests {
  @Test func aKeyKeptInAFolderComesBackInTheNextHost() async throws {
    let scratch = ScratchDirectory()
    do {
      let host = try folderHost(scratch)
      for amount in [5, 7] { await host.pour(.deposit(amount), to: "alice").finish() }
      _ = try await host.pour(.withdraw(2), to: "alice", id: "r1")
      await host.close()
      #expect(host.counts.passivations == 1)
    }
    let host = try folderHost(scratch)
    #expect(try await host.state(of: "alice").balance == 10)
    #expect(host.counts.recoveries == 1)
    // The request is remembered: a retry in the next process is not applied again.
    #expect(
      try await host.pour(.withdraw(2), to: "alice", id: "r1") == PourReceipt(sequence: 3, duplicate: true))
    #expect(try await host.state(of: "alice").balance == 10)
    await host.close()
  }

  /// Issue 51: a reminder due while the process was down fires once when the next host starts,
  /// and never again.
  @Test func aReminderDueWhileTheProcessWasDownFiresOnceOnStart() async throws {
    let scratch = ScratchDirectory()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    do {
      let host = try folderHost(scratch, start: start)
      await host.pour(.expireAt(start.addingTimeInterval(100)), to: "alice").finish()
      await host.close()
    }
    for (restart, fired) in [(200.0, 1), (300.0, 0)] {
      let host = try folderHost(scratch, start: start.addingTimeInterval(restart))
      await host.settle()
      await host.finish("alice")
      #expect(try await host.state(of: "alice").expired)
      #expect(host.counts.remindersFired == fired)
      await host.close()
    }
    let entries = try Journal.read(at: KeyFolder.path(of: "alice", in: scratch.path).path + "/journal")
      .entries
    #expect(entries.filter { $0.action.hasPrefix("f ") }.count <= 1)
  }

  /// `settle()` returns once every reminder due on start has been reduced, not only once the keys
  /// they wake are active: the Accounts sample read 22 of 50 bonuses paid after it (CI, 9af671e).
  @Test func settleWaitsForEveryReminderDueOnStartToBeReduced() async throws {
    let scratch = ScratchDirectory()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let keys = (0..<50).map { "acct-\($0)" }
    do {
      let host = try folderHost(scratch, start: start)
      for key in keys { await host.pour(.expireAt(start.addingTimeInterval(100)), to: key).finish() }
      await host.close()
    }
    let host = try folderHost(scratch, start: start.addingTimeInterval(200))
    await host.settle()
    #expect(host.counts.remindersFired == keys.count)
    await host.close()
  }

  /// A reminder cancelled before its time never fires, even after a restart.
  @Test func aCancelledReminderNeverFires() async throws {
    let scratch = ScratchDirectory()
    let clock = TestClock()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let host = try folderHost(scratch, clock: clock, start: start)
    await host.pour(.expireAt(start.addingTimeInterval(100)), to: "alice").finish()
    await host.pour(.keepOpen, to: "alice").finish()
    await host.close()
    let again = try folderHost(scratch, start: start.addingTimeInterval(500))
    await again.settle()
    #expect(try await again.state(of: "alice").expired == false)
    #expect(again.counts.remindersFired == 0)
    await again.close()
  }

  /// A key whose journal is corrupt fails its own pours, clearly, and is left as it is; the key
  /// beside it goes on.
  @Test func aCorruptKeyFailsAloneAndIsLeftAsItIs() async throws {
    let scratch = ScratchDirectory()
    let (folder, _) = KeyFolder.path(of: "broken", in: scratch.path)
    #expect(KeyFolder.make(folder, under: scratch.path) == nil)
    let garbage = Array("dripper-journal 1\nnot an entry\n2 - a {} 0000000000000000\n".utf8)
    #expect(AtomicFile.replace(at: folder + "/journal", with: garbage) == nil)
    let diagnostics = LockIsolated<[String]>([])
    let host = try folderHost(scratch, diagnostics: diagnostics)
    await #expect(throws: HostError.self) { try await host.pour(.deposit(1), to: "broken", id: "x") }
    #expect(
      await reported(diagnostics) == [
        "broken: key broken failed: \(folder)/journal: line 2 is corrupt (not an entry); its pours fail "
          + "until it is tried again"
      ])
    await host.pour(.deposit(1), to: "healthy").finish()
    #expect(try await host.state(of: "healthy").balance == 1)
    #expect(host.counts.failed == 1)
    #expect(AtomicFile.contents(at: folder + "/journal") == .success(garbage))
    await host.close()
  }

  /// Keys are any text: each lives in a folder of its own under `keys/`, whatever it holds.
  @Test(arguments: [
    "../../escape", "", "a/b", "..", ".", "%2F", "ümlaut", "new\nline", String(repeating: "long", count: 100),
  ])
  func aHostileKeyStaysInItsFolder(key: String) async throws {
    let scratch = ScratchDirectory()
    do {
      let host = try folderHost(scratch)
      await host.pour(.deposit(3), to: key).finish()
      await host.close()
    }
    let (folder, _) = KeyFolder.path(of: key, in: scratch.path)
    #expect(folder.hasPrefix(scratch.path + "/keys/"))
    let name = String(folder.dropFirst(scratch.path.count + "/keys/".count))
    #expect(name.split(separator: "/").count == 3)
    #expect(!name.split(separator: "/").contains { $0 == "." || $0 == ".." })
    #expect(FileManager.default.fileExists(atPath: folder + "/journal"))
    let host = try folderHost(scratch)
    #expect(try await host.state(of: key).balance == 3)
    await host.close()
  }

  /// Two hosts on one folder (two processes, two nodes): the second is refused a key the first
  /// holds, by the key's journal lock, and forks nothing.
  @Test func aSecondHostIsRefusedAKeyTheFirstHolds() async throws {
    let scratch = ScratchDirectory()
    let first = try folderHost(scratch, node: "a")
    let refusals = LockIsolated<[String]>([])
    let second = try folderHost(scratch, node: "b", diagnostics: refusals)
    await first.pour(.deposit(1), to: "alice").finish()
    await #expect(throws: HostError.self) { try await second.pour(.deposit(1), to: "alice", id: "x") }
    #expect(await reported(refusals).count == 1)
    #expect(
      refusals.value.first?.hasSuffix("is in use by another process; its pours fail until it is tried again")
        == true)
    await first.close()
    await second.close()
    let host = try folderHost(scratch, node: "a")
    #expect(try await host.state(of: "alice").balance == 1)
    await host.close()
  }

  /// A host's node names its reminders, which one process at a time holds.
  @Test func twoHostsOfOneNodeNameAreRefused() throws {
    let scratch = ScratchDirectory()
    let first = try folderHost(scratch, node: "a")
    #expect(throws: HostError.self) { try folderHost(scratch, node: "a") }
    _ = first
  }

  /// Issue 51: a deploy changes the types. Keys recorded under version 1 (a snapshot, entries
  /// after it, a request remembered) are recovered under version 2, migrated once.
  @Test func keysRecordedUnderVersion1AreRecoveredUnderVersion2() async throws {
    let scratch = ScratchDirectory()
    do {
      let host = try StationHost<String, TallyV1>(
        storage: .folder(scratch.path, codec: .json, snapshotEvery: 2)
      ) { _ in
        TallyV1.State()
      } dripper: { _ in
        TallyV1()
      }
      for amount in 1...3 { await host.pour(.add(amount), to: "k").finish() }
      _ = try await host.pour(.add(10), to: "k", id: "request")
      host.pour(.add(100), to: "j")
      await host.finish("j")
      // No close: the keys are recovered from what their journals hold, as after a crash.
      await host.settle()
    }
    // The released host's journals let go of their locks as their writing threads end, which a
    // loaded machine (ThreadSanitizer, both cores busy) can delay past the second a journal waits
    // for a lock: wait for them here, bounded.
    for key in ["k", "j"] {
      #expect(await journalUnlocks(at: KeyFolder.path(of: key, in: scratch.path).0 + "/journal"))
    }
    let schema = JournalSchema<TallyV2.State, TallyV2.Action>(version: 2) { text, _ in
      let old = try JSONDecoder().decode(TallyV1.State.self, from: Data(text.utf8))
      return TallyV2.State(count: old.count, unit: "items")
    } migrateAction: { text, _ in
      switch try JSONDecoder().decode(TallyV1.Action.self, from: Data(text.utf8)) {
      case .add(let amount): return .add(amount, unit: "items")
      }
    }
    let host = try StationHost<String, TallyV2>(
      storage: .folder(scratch.path, codec: .json, schema: schema, node: "upgraded")
    ) { _ in
      TallyV2.State()
    } dripper: { _ in
      TallyV2()
    }
    #expect(try await host.state(of: "k") == TallyV2.State(count: 16, unit: "items"))
    #expect(try await host.state(of: "j") == TallyV2.State(count: 100, unit: "items"))
    #expect(try await host.pour(.add(10, unit: "items"), to: "k", id: "request").duplicate)
    await host.close()
  }
}

/// A tally as version 1 of a program wrote it.
struct TallyV1: Dripper {
  struct State: Equatable, Sendable, Codable { var count = 0 }
  enum Action: Equatable, Sendable, Codable { case add(Int) }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount): state.count += amount
      }
      return .none
    }
  }
}

/// The tally in version 2: it counts in a unit.
struct TallyV2: Dripper {
  struct State: Equatable, Sendable, Codable {
    var count = 0
    var unit = ""
  }
  enum Action: Equatable, Sendable, Codable { case add(Int, unit: String) }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount, let unit):
        state.count += amount
        state.unit = unit
      }
      return .none
    }
  }
}

/// Whether the journal at `path` can be locked (and is let go again) within 30 seconds.
private func journalUnlocks(at path: String) async -> Bool {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return false }
  defer { close(descriptor) }
  let deadline = ContinuousClock.now + .seconds(30)
  while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
    guard ContinuousClock.now < deadline else { return false }
    try? await Task.sleep(for: .milliseconds(5))
  }
  flock(descriptor, LOCK_UN)
  return true
}

/// What `diagnostics` holds once it holds anything, waiting at most 10 seconds: a failed key is
/// reported just after its pours are failed, from the task that failed them.
private func reported(_ diagnostics: LockIsolated<[String]>) async -> [String] {
  let deadline = ContinuousClock.now + .seconds(10)
  while diagnostics.value.isEmpty, ContinuousClock.now < deadline {
    try? await Task.sleep(for: .milliseconds(1))
  }
  return diagnostics.value
}
