import ChildProcesses
import Foundation
import JournalCrashChild
import Testing

@testable import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct StationHostCrashTests {
  #if os(Linux)
    /// Issue 51: a child process hosting a thousand keys, pouring requests with ids, is killed with
    /// SIGKILL at random moments, again and again. Every request it saw acknowledged is in its
    /// key, no request is applied twice, and the next child, sending the same ids again from the
    /// start, is told they are duplicates: nothing the host's durability promised is lost. In a
    /// host's folder, and in a `FolderKeyStore`.
    @Test(arguments: [false, true])
    func killedWithAThousandKeysTheHostLosesNothingAcknowledged(inStore: Bool) async throws {
      let scratch = ScratchDirectory()
      let keys = 1_000
      var acknowledged: [String: Set<Int>] = [:]
      var generator = SystemRandomNumberGenerator()
      for _ in 0..<scaled(10) {
        let arguments = ["host", scratch.path, String(keys)] + (inStore ? ["store"] : [])
        guard let child = ChildProcess("JournalCrashChild", arguments: arguments) else {
          Issue.record("could not start JournalCrashChild beside the tests")
          return
        }
        // Some hundreds acknowledged (or ten seconds on a machine that is very busy), then a kill
        // at a random moment of what follows.
        var lines: [String] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while lines.count < 300, ContinuousClock.now < deadline { lines += child.readLines(waitingUpTo: 100) }
        usleep(UInt32.random(in: 0..<300_000, using: &generator))
        child.killAndWait()
        lines += child.readLines(waitingUpTo: 0)
        lines.removeAll { $0.split(separator: " ").count != 2 }
        for line in lines {
          let fields = line.split(separator: " ")
          acknowledged[String(fields[0]), default: []].insert(Int(fields[1])!)
        }
      }
      let host = try HostedTally.host(at: scratch.path, node: "check", inStore: inStore)
      var checked = 0
      for (key, numbers) in acknowledged {
        let count = try await host.state(of: key).count
        // The one request in flight as the child died may have been applied without its receipt.
        #expect(count >= numbers.count, "\(key): \(numbers.count) requests acknowledged, \(count) applied")
        #expect(count <= numbers.count + 1, "\(key): a request was applied twice")
        if let number = numbers.min(), checked < 50 {
          checked += 1
          #expect(try await host.pour(.add, to: key, id: String(number)).duplicate)
        }
      }
      #expect(acknowledged.count >= 300, "only \(acknowledged.count) keys were used")
      await host.close()
    }

    /// Issue 57: a reminder moved later, then a crash. A child sets key `alarm`'s reminder 100 s
    /// after its wall time, moves it to 200 s, pokes the key three times (each entry a snapshot)
    /// and is killed. Restarted 50 s after, with the index's hint still at 100 s, the host wakes the
    /// key at 100 s, learns of 200 s from its state, and rings it then, once. Before, it never
    /// rang.
    @Test func aReminderMovedLaterFiresAfterACrash() async throws {
      let scratch = ScratchDirectory()
      let start = Date(timeIntervalSince1970: 1_800_000_000)
      guard
        let child = ChildProcess(
          "JournalCrashChild", arguments: ["host-alarm", scratch.path, String(start.timeIntervalSince1970)])
      else {
        Issue.record("could not start JournalCrashChild beside the tests")
        return
      }
      var lines: [String] = []
      let deadline = ContinuousClock.now.advanced(by: .seconds(30))
      while !lines.contains("ready"), ContinuousClock.now < deadline {
        lines += child.readLines(waitingUpTo: 100)
      }
      child.killAndWait()
      #expect(lines.contains("ready"), "\(lines)")
      let clock = TestClock()
      let host = try StationHost<String, HostedAlarm>(
        storage: .folder(scratch.path, codec: .json, snapshotEvery: 1, node: "child"),
        lifetime: HostLifetime(time: .controlled(by: clock, startingAt: start.addingTimeInterval(50)))
      ) { _ in
        HostedAlarm.State()
      } dripper: { _ in
        HostedAlarm()
      }
      await host.settle()
      await clock.advance(by: .seconds(100))
      await host.settle()
      await host.finish("alarm")
      #expect(try await host.state(of: "alarm").rings == 0)
      await clock.advance(by: .seconds(60))
      await host.settle()
      await host.finish("alarm")
      #expect(try await host.state(of: "alarm") == HostedAlarm.State(rings: 1, pokes: 3))
      await clock.advance(by: .seconds(1_000))
      await host.settle()
      #expect(try await host.state(of: "alarm").rings == 1)
      await host.close()
    }

    /// Two processes, each a host on a `FolderKeyStore` over one folder, take notes to one key at
    /// once, each claiming it back whenever the other took it. One writer at a time: every note
    /// either acknowledged is in the key once, and none is there twice.
    @Test func twoProcessesRacingForAKeyInAFolderStoreNeverFork() async throws {
      let scratch = ScratchDirectory()
      var children: [ChildProcess] = []
      for (node, offset) in [("a", 1_000), ("b", 2_000)] {
        guard
          let child = ChildProcess("JournalCrashChild", arguments: ["race", scratch.path, node, "\(offset)"])
        else {
          Issue.record("could not start JournalCrashChild beside the tests")
          return
        }
        children.append(child)
      }
      var lines: [String] = []
      for child in children {
        var own: [String] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !own.contains("done"), ContinuousClock.now < deadline {
          own += child.readLines(waitingUpTo: 100)
        }
        #expect(own.contains("done"), "a child did not finish: \(own.suffix(3))")
        child.killAndWait()
        lines += own
      }
      let acknowledged = lines.filter { $0.hasPrefix("ack ") }.compactMap { Int($0.dropFirst(4)) }
      let host = try StationHost<String, HostedNotes>(
        storage: .store(FolderKeyStore(folder: scratch.path), codec: .json, node: "check")
      ) { _ in
        HostedNotes.State()
      } dripper: { key in
        HostedNotes(key: key) { _ in }
      }
      let notes = try await host.state(of: "contested").notes
      #expect(Set(notes).count == notes.count, "a note taken twice: \(notes)")
      #expect(Set(acknowledged).isSubset(of: Set(notes)), "acknowledged notes lost")
      #expect(!acknowledged.isEmpty)
      await host.close()
    }
  #endif
}
