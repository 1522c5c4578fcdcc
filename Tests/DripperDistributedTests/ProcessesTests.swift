import ChildProcesses
import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Nodes in processes of their own (Tests/DistributedNode), talking with the test's node through the
/// serializing system over Unix sockets.
@Suite struct ProcessesTests {
  #if os(Linux)
    /// Issue 52: two processes host tallies in one folder; the test pours through the router, with
    /// request ids, and kills one with SIGKILL mid-stream. Its keys are recovered by the other, and
    /// the pours whose replies the kill lost, sent again with their ids, are each applied once:
    /// every key holds exactly the pours made.
    @Test func aNodeKilledMidStreamLeavesItsKeysToTheOtherExactlyOnce() async throws {
      let folder = NSTemporaryDirectory() + "dripper-processes-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: folder + "/sockets", withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: folder) }
      var children: [String: ChildProcess] = [:]
      for name in ["a", "b"] {
        guard
          let child = ChildProcess(
            "DistributedNode", arguments: [name, folder + "/sockets", folder + "/storage"])
        else {
          Issue.record("could not start DistributedNode beside the tests")
          return
        }
        guard child.readLines(waitingUpTo: 20_000).first == "ready \(name)/1" else {
          Issue.record("node \(name) did not start")
          return
        }
        children[name] = child
      }
      let client = JSONActorSystem(node: "client", wire: SocketWire(directory: folder + "/sockets"))
      let hosts = try ["a", "b"].map {
        try JSONHost.resolve(id: NodeActorID(node: $0, number: 1), using: client)
      }
      let keys = (0..<30).map { "key\($0)" }
      var router = HostRouter(hosts: hosts)
      #expect(Set(keys.map { router.owner(of: $0)!.id.node }) == ["a", "b"])

      // Pours, a request id each, all of a round at once; node a is killed in the middle of one.
      var sent: [(key: String, id: String)] = []
      var unanswered: [(key: String, id: String)] = []
      let victim = children["a"]!.pid
      for round in 0..<20 {
        let owners = keys.map { router.owner(of: $0)! }
        let killer = Task.detached {
          guard round == 10 else { return }
          usleep(UInt32.random(in: 0..<3_000))
          kill(victim, SIGKILL)
        }
        let failed = await withTaskGroup(of: (String, String)?.self) { group in
          for (key, owner) in zip(keys, owners) {
            let id = "\(key)-\(round)"
            sent.append((key, id))
            group.addTask {
              do {
                _ = try await owner.pour(.add(1), to: key, id: id)
                return nil
              } catch {
                return (key, id)
              }
            }
          }
          var failed: [(String, String)] = []
          for await result in group { if let result { failed.append(result) } }
          return failed
        }
        await killer.value
        if round == 10 { children["a"]?.killAndWait() }
        unanswered += failed.map { (key: $0.0, id: $0.1) }
        if round == 10 { router.update([hosts[1]]) }
      }
      #expect(!unanswered.isEmpty, "the kill lost no reply")
      // The other node takes node a's keys from the folder; the unanswered pours are sent again.
      for (key, id) in unanswered { _ = try await hosts[1].pour(.add(1), to: key, id: id) }
      for key in keys {
        let expected = sent.count { $0.key == key }
        #expect(try await hosts[1].state(of: key) == Tally.State(total: expected, count: expected), "\(key)")
      }
      _ = children
    }
  #endif
}
