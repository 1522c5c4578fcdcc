import Foundation
import Testing

@testable import Dripper

/// A bank account whose withdrawals are capped at `limit`: a rule a deploy changes.
struct CappedAccount: Dripper {
  struct State: Equatable, Sendable, Codable { var balance = 1_000 }
  enum Action: Equatable, Sendable, Codable { case withdraw(Int) }

  let limit: Int

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .withdraw(let amount) where amount <= limit: state.balance -= amount
      case .withdraw: break
      }
      return .none
    }
  }
}

/// Issue 57: a deploy never rewrites history silently.
@Suite struct StationHostReplayTests {
  /// A host of capped accounts in `path`, under `schema`.
  private func host(
    _ path: String, limit: Int, policy: ReplayDivergencePolicy = .fail,
    schema: JournalSchema<CappedAccount.State, CappedAccount.Action> = .initial,
    diagnostics: LockIsolated<[String]>? = nil
  ) throws -> StationHost<String, CappedAccount> {
    try StationHost(
      storage: .folder(path, codec: .json, schema: schema, snapshotEvery: 1_000)
        .checkingReplays(every: 1, onDivergence: policy),
      observer: StationHostObserver(diagnostic: { key, diagnostic in
        diagnostics?.withValue { $0.append("\(key): \(diagnostic.message)") }
      })
    ) { _ in
      CappedAccount.State()
    } dripper: { _ in
      CappedAccount(limit: limit)
    }
  }

  /// Withdrawals of 80 recorded under a limit of 100, replayed after a crash under a limit of 50.
  private func recordUnderTheOldRule(in path: String) async throws {
    let old = try host(path, limit: 100)
    for number in 0..<3 { _ = try await old.pour(.withdraw(80), to: "alice", id: "\(number)") }
    // No close: the key's actions are replayed from its journal, as after a crash.
    await old.finish("alice")
    await old.settle()
  }

  /// The replay reaches another state than the one acknowledged: the key fails, saying so, and
  /// its files are left as they are.
  @Test func aReplayThatReachesAnotherStateFailsTheKey() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderTheOldRule(in: scratch.path)
    let journal = KeyFolder.path(of: "alice", in: scratch.path).path + "/journal"
    #expect(await fileUnlocks(journal))
    let before = AtomicFile.contents(at: journal)
    let diagnostics = LockIsolated<[String]>([])
    let new = try host(scratch.path, limit: 50, diagnostics: diagnostics)
    do {
      _ = try await new.state(of: "alice")
      Issue.record("the replay was accepted")
    } catch {
      guard case .storage(_, let journalError) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(journalError.message.contains("the replay of entry 1"))
      #expect(journalError.message.contains("reached another state than the one recorded"))
    }
    #expect(diagnostics.value.count == 1)
    #expect(AtomicFile.contents(at: journal) == before)
    await new.close()
    // The old rule reads it as it was.
    let old = try host(scratch.path, limit: 100)
    #expect(try await old.state(of: "alice").balance == 760)
    await old.close()
  }

  /// A policy of `.report` goes on with the replayed state, and says where it differed.
  @Test func aReportedDivergenceGoesOnWithTheReplay() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderTheOldRule(in: scratch.path)
    #expect(await fileUnlocks(KeyFolder.path(of: "alice", in: scratch.path).path + "/journal"))
    let diagnostics = LockIsolated<[String]>([])
    let new = try host(scratch.path, limit: 50, policy: .report, diagnostics: diagnostics)
    #expect(try await new.state(of: "alice").balance == 1_000)
    #expect(
      diagnostics.value.contains { $0.contains("differs from the one its journal recorded at entry 1") })
    await new.close()
  }

  /// A deploy that declares a new schema version says the change is meant: its replay is not
  /// checked against what the older version recorded.
  @Test func aNewSchemaVersionIsNotCheckedAgainstTheOld() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderTheOldRule(in: scratch.path)
    #expect(await fileUnlocks(KeyFolder.path(of: "alice", in: scratch.path).path + "/journal"))
    let schema = JournalSchema<CappedAccount.State, CappedAccount.Action>(version: 2) { text, _ in
      try JSONDecoder().decode(CappedAccount.State.self, from: Data(text.utf8))
    } migrateAction: { text, _ in
      try JSONDecoder().decode(CappedAccount.Action.self, from: Data(text.utf8))
    }
    let new = try host(scratch.path, limit: 50, schema: schema)
    #expect(try await new.state(of: "alice").balance == 1_000)
    await new.close()
  }

  /// A rule changed with the keys snapshotted (`close()` before the deploy) replays nothing.
  @Test func aRuleChangedAfterAClosedHostReplaysNothing() async throws {
    let scratch = ScratchDirectory()
    let old = try host(scratch.path, limit: 100)
    for number in 0..<3 { _ = try await old.pour(.withdraw(80), to: "alice", id: "\(number)") }
    await old.close()
    let new = try host(scratch.path, limit: 50)
    #expect(try await new.state(of: "alice").balance == 760)
    await new.close()
  }
}

/// Whether the file at `path` can be locked within 30 seconds: a released host's journal, let go
/// of as its last write ends.
func fileUnlocks(_ path: String) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(30)
  while ContinuousClock.now < deadline {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    if descriptor >= 0 {
      defer { close(descriptor) }
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
        flock(descriptor, LOCK_UN)
        return true
      }
    }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return false
}
