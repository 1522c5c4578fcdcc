import ChildProcesses
import Foundation
import JournalCrashChild
import Testing

@testable import Dripper

/// Issue 57: nothing acknowledged that is not durable. A receipt, a reply, a read, the end of a
/// pour's task and the start of an effect leave only once what they acknowledge is durable, and a
/// key whose storage fails stops, and is read again from disk.
@Suite struct StationHostGateTests {
  #if os(Linux)
    /// A child whose files may not grow past 256 KiB asks for 12 notes of 40 KB to one key,
    /// interleaved with small ones to another, and is killed. Every note acknowledged is recovered,
    /// every note an effect told the world of is too, and the small key loses nothing. Before the
    /// output gate, all 12 big notes were acknowledged and 6 of them lost. The same holds of a
    /// host in a ``FolderKeyStore``.
    @Test(arguments: [false, true])
    func aFullDiskAcknowledgesNothingItDidNotRecord(inStore: Bool) async throws {
      let scratch = ScratchDirectory()
      guard
        let child = ChildProcess(
          "JournalCrashChild", arguments: ["host-full", scratch.path] + (inStore ? ["store"] : []))
      else {
        Issue.record("could not start JournalCrashChild beside the tests")
        return
      }
      var lines: [String] = []
      let deadline = ContinuousClock.now.advanced(by: .seconds(60))
      while !lines.contains("done"), ContinuousClock.now < deadline {
        lines += child.readLines(waitingUpTo: 100)
      }
      child.killAndWait()
      lines += child.readLines(waitingUpTo: 0)
      #expect(lines.contains("done"), "the child did not finish: \(lines.suffix(5))")
      func numbers(_ prefix: String) -> Set<Int> {
        Set(lines.filter { $0.hasPrefix(prefix + " ") }.compactMap { Int($0.dropFirst(prefix.count + 1)) })
      }
      let acknowledged = numbers("ack big")
      let told = numbers("told big")
      #expect(numbers("fail big").count > 0, "the disk never filled: \(lines)")
      #expect(numbers("ack small") == Set(0..<12))

      let host = try StationHost<String, HostedNotes>(
        storage: .json(in: scratch.path, node: "check", inStore: inStore)
      ) { _ in
        HostedNotes.State()
      } dripper: { key in
        HostedNotes(key: key) { _ in }
      }
      let recovered = Set(try await host.state(of: "big").notes)
      #expect(
        acknowledged.isSubset(of: recovered),
        "acknowledged \(acknowledged.sorted()), recovered \(recovered.sorted())")
      #expect(
        told.isSubset(of: recovered), "effects told of \(told.sorted()), recovered \(recovered.sorted())")
      #expect(Set(try await host.state(of: "small").notes) == Set(0..<12))
      // A retry of an acknowledged note is answered as the first was, and not taken again; the
      // same id with another note is refused.
      if let first = acknowledged.min() {
        let answer = try await host.ask(
          .note(first, String(repeating: "x", count: 40_000)), to: "big", id: "big-\(first)")
        #expect(answer.receipt.duplicate)
        #expect(answer.reply == first + 1)
        await #expect(throws: HostError.requestMismatch(key: "big", id: "big-\(first)")) {
          try await host.ask(.note(first, "another"), to: "big", id: "big-\(first)")
        }
      }
      await host.close()
    }
  #endif

  /// An effect of a key kept in a folder starts once the entry of the action that started it is
  /// synced: the effect reads its journal and finds it there.
  @Test func anEffectStartsOnceItsEntryIsSynced() async throws {
    let scratch = ScratchDirectory()
    let found = LockIsolated<[Bool]>([])
    let journal = KeyFolder.path(of: "alice", in: scratch.path).path + "/journal"
    let host = try StationHost<String, EntryProbe>(
      storage: .folder(scratch.path, codec: .json, durability: .everyActions(1_000))
    ) { _ in
      EntryProbe.State()
    } dripper: { _ in
      EntryProbe { number in
        let entries = (try? Journal.read(at: journal).entries) ?? []
        found.withValue { $0.append(entries.contains { $0.sequence == UInt64(number) }) }
      }
    }
    for _ in 1...5 { await host.pour(.probe, to: "alice").finish() }
    #expect(found.value == [true, true, true, true, true])
    await host.close()
  }

  /// A key whose storage fails as it writes stops: its pours are refused with the error, and the
  /// next use after `retryFailedAfter` reads it again from disk, where nothing it did not
  /// acknowledge is.
  @Test func aKeyWhoseWriteFailsIsDroppedAndReadAgainFromDisk() async throws {
    let scratch = ScratchDirectory()
    let clock = TestClock()
    let host = try StationHost<String, Account>(
      storage: .folder(scratch.path, codec: .json),
      lifetime: HostLifetime(time: .controlled(by: clock), retryFailedAfter: .seconds(5)),
      observer: StationHostObserver(diagnostic: { _, _ in })
    ) { _ in
      Account.State()
    } dripper: { _ in
      Account()
    }
    _ = try await host.pour(.deposit(5), to: "alice", id: "1")
    // The journal is taken away from under the key: its next write fails.
    let journal = KeyFolder.path(of: "alice", in: scratch.path).path + "/journal"
    let resident = try #require(host.table.withLock { $0.resident("alice") })
    let file = try #require(resident.log?.file)
    file.closeDescriptor()
    await #expect(throws: HostError.self) { try await host.pour(.deposit(7), to: "alice", id: "2") }
    let refused = host.pour(.deposit(9), to: "alice")
    await refused.finish()
    #expect(refused.failure != nil)
    #expect(host.counts.failed == 1)
    #expect(host.counts.resident == 0)
    await clock.advance(by: .seconds(5))
    #expect(try await host.state(of: "alice").balance == 5)
    #expect(FileManager.default.fileExists(atPath: journal))
    await host.close()
  }

  /// A pour's task into a key kept in a folder ends once its entry is durable: `finish()` is an
  /// acknowledgement too. A pour into a host that closed says why it was not kept.
  @Test func aPoursTaskEndsOnceItsEntryIsDurableOrSaysWhyNot() async throws {
    let scratch = ScratchDirectory()
    let host = try StationHost<String, Account>(storage: .folder(scratch.path, codec: .json)) { _ in
      Account.State()
    } dripper: { _ in
      Account()
    }
    let task = host.pour(.deposit(5), to: "alice")
    await task.finish()
    #expect(task.failure == nil)
    let entries = try Journal.read(at: KeyFolder.path(of: "alice", in: scratch.path).path + "/journal")
      .entries
    #expect(entries.count == 1)
    await host.close()
    let late = host.pour(.deposit(1), to: "alice")
    await late.finish()
    #expect(late.failure == .closed)
    await #expect(throws: HostError.closed) { try await host.pour(.deposit(1), to: "alice", id: "x") }
  }
}

/// A feature whose effect reports, with the number of the action that started it, what it finds.
struct EntryProbe: Dripper {
  struct State: Equatable, Sendable, Codable { var count = 0 }
  enum Action: Equatable, Sendable, Codable { case probe }

  let look: @Sendable (Int) -> Void

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count += 1
      return .run { [count = state.count, look] _ in look(count) }
    }
  }
}
