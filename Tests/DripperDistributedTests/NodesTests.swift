import ChildProcesses
import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation
import Testing

/// Nodes of one process on the serializing system, sharing a folder: keys moving between them,
/// retries, nodes killed, two nodes that both believe they own a key.
@Suite struct NodesTests {
  /// A node: its system, its local host and its distributed host.
  struct Node {
    let name: String
    let system: JSONActorSystem
    var local: StationHost<String, Tally>?
    var host: JSONHost?
  }

  private func node(_ name: String, on network: TestNetwork, folder: String) throws -> Node {
    let system = network.node(name)
    let local = try tallyHost(folder: folder, node: name)
    return Node(name: name, system: system, local: local, host: JSONHost(host: local, actorSystem: system))
  }

  /// The hosts as a caller on `client` sees them.
  private func remote(_ nodes: [Node], from client: JSONActorSystem) throws -> [JSONHost] {
    try nodes.compactMap { $0.host }.map { try JSONHost.resolve(id: $0.id, using: client) }
  }

  /// Issue 52: keys poured through the router to two nodes; a third joins, the others release the
  /// keys it now owns, and the keys go on there from the shared folder: nothing acknowledged lost.
  @Test func keysMoveToANodeThatJoinsWithNothingAcknowledgedLost() async throws {
    let folder = NSTemporaryDirectory() + "dripper-nodes-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let network = TestNetwork()
    let client = network.node("client")
    let nodes = try ["a", "b", "c"].map { try node($0, on: network, folder: folder) }
    let keys = (0..<60).map { "cart\($0)" }
    var router = HostRouter(hosts: try remote(Array(nodes.prefix(2)), from: client))
    for key in keys { _ = try await router.owner(of: key)!.pour(.add(1), to: key, id: "first") }

    router.update(try remote(nodes, from: client))
    for node in nodes.prefix(2) {
      try await node.host!.release(keysNotOwnedBy: HostRouter(hosts: nodes.compactMap { $0.host }))
    }
    var movedToC = 0
    for key in keys {
      let owner = router.owner(of: key)!
      if owner.id == nodes[2].host!.id { movedToC += 1 }
      _ = try await owner.pour(.add(1), to: key, id: "second")
      #expect(try await owner.state(of: key) == Tally.State(total: 2, count: 2), "\(key)")
    }
    #expect(movedToC > 0)
  }

  /// A node killed mid-stream: its keys, whose journals it held, are recovered by the others once
  /// it is gone, with every pour it acknowledged.
  @Test func aKilledNodesKeysAreRecoveredByTheOthers() async throws {
    let folder = NSTemporaryDirectory() + "dripper-nodes-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let network = TestNetwork()
    let client = network.node("client")
    var nodes = try ["a", "b"].map { try node($0, on: network, folder: folder) }
    let keys = (0..<40).map { "order\($0)" }
    let before = HostRouter(hosts: try remote(nodes, from: client))
    var acknowledged: [String: Int] = [:]
    for round in 0..<3 {
      for key in keys {
        _ = try await before.owner(of: key)!.pour(.add(1), to: key, id: "r\(round)")
        acknowledged[key, default: 0] += 1
      }
    }
    // Node a dies: its network goes, and so does its process's hold on its journals.
    network.kill("a")
    nodes[0].host = nil
    nodes[0].local = nil
    let after = HostRouter(hosts: try remote([nodes[1]], from: client))
    for key in keys {
      let state = try await after.owner(of: key)!.state(of: key)
      #expect(state.count == acknowledged[key], "\(key)")
    }
  }

  /// Split brain: two nodes each believe they own a key. The one that holds its journal serves it;
  /// the other is refused, typed, and never writes it.
  @Test func twoNodesThatBothBelieveTheyOwnAKeyNeverBothWriteIt() async throws {
    let folder = NSTemporaryDirectory() + "dripper-nodes-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let network = TestNetwork()
    let client = network.node("client")
    let nodes = try ["a", "b"].map { try node($0, on: network, folder: folder) }
    let (a, b) = (try remote([nodes[0]], from: client)[0], try remote([nodes[1]], from: client)[0])
    _ = try await a.pour(.add(1), to: "contested", id: "a1")
    await #expect(throws: DistributedHostError.heldElsewhere(key: "contested")) {
      try await b.pour(.add(100), to: "contested", id: "b1")
    }
    _ = try await a.pour(.add(1), to: "contested", id: "a2")
    #expect(try await a.state(of: "contested") == Tally.State(total: 2, count: 2))
  }

  /// Calls that overtake each other (random delays) to one key, with request ids, all applied once.
  @Test func callsInAnyOrderAreEachAppliedOnce() async throws {
    let network = TestNetwork()
    let (server, client) = (network.node("server"), network.node("client"))
    let host = JSONHost(host: try tallyHost(), actorSystem: server)
    let remote = try JSONHost.resolve(id: host.id, using: client)
    network.delay("server", upTo: .milliseconds(5))
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<50 {
        group.addTask {
          _ = try await remote.pour(.add(1), to: "k", id: "\(index)")
          _ = try await remote.pour(.add(1), to: "k", id: "\(index)")
        }
      }
      try await group.waitForAll()
    }
    #expect(try await remote.state(of: "k") == Tally.State(total: 50, count: 50))
  }
}
