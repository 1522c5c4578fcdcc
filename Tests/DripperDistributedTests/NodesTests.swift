import ChildProcesses
import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import DripperTesting
import Foundation
import Testing

/// Nodes of one process on the serializing system, sharing a folder or a key store: keys moving
/// between them, retries, nodes killed, two nodes that both believe they own a key.
@Suite struct NodesTests {
  /// A node: its system, its local host and its distributed host.
  struct Node {
    let name: String
    let system: JSONActorSystem
    var local: StationHost<String, Tally>?
    var host: JSONHost?
  }

  /// What the nodes of a test keep their keys in.
  enum Sharing: String, CaseIterable, CustomTestStringConvertible {
    /// A folder: a key's journal locked by the node that holds it, until it lets go.
    case folder
    /// A key store: each write fenced by the epoch of the node's claim.
    case store

    var testDescription: String { rawValue }
  }

  /// The storage the nodes of one test share, removed at the end.
  final class Shared: Sendable {
    let sharing: Sharing
    let folder = NSTemporaryDirectory() + "dripper-nodes-\(UUID().uuidString)"
    let store = InMemoryKeyStore()

    init(_ sharing: Sharing) { self.sharing = sharing }
    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// The storage of the node `name`.
    func storage(_ name: String) -> HostStorage<Tally.State, Tally.Action> {
      switch sharing {
      case .folder: .folder(folder, codec: .json, node: name)
      case .store: .store(store, codec: .json, node: name)
      }
    }
  }

  private func node(_ name: String, on network: TestNetwork, sharing shared: Shared) throws -> Node {
    let system = network.node(name)
    let local = try tallyHost(storage: shared.storage(name), retryFailedAfter: .milliseconds(20))
    return Node(name: name, system: system, local: local, host: JSONHost(host: local, actorSystem: system))
  }

  /// The hosts as a caller on `client` sees them.
  private func remote(_ nodes: [Node], from client: JSONActorSystem) throws -> [JSONHost] {
    try nodes.compactMap { $0.host }.map { try JSONHost.resolve(id: $0.id, using: client) }
  }

  /// Issue 52: keys poured through the router to two nodes; a third joins, the others release the
  /// keys it now owns, and the keys go on there from the shared storage: nothing acknowledged lost.
  @Test(arguments: Sharing.allCases)
  func keysMoveToANodeThatJoinsWithNothingAcknowledgedLost(_ sharing: Sharing) async throws {
    let shared = Shared(sharing)
    let network = TestNetwork()
    let client = network.node("client")
    let nodes = try ["a", "b", "c"].map { try node($0, on: network, sharing: shared) }
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
  @Test(arguments: Sharing.allCases)
  func aKilledNodesKeysAreRecoveredByTheOthers(_ sharing: Sharing) async throws {
    let shared = Shared(sharing)
    let network = TestNetwork()
    let client = network.node("client")
    var nodes = try ["a", "b"].map { try node($0, on: network, sharing: shared) }
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
    let shared = Shared(.folder)
    let network = TestNetwork()
    let client = network.node("client")
    let nodes = try ["a", "b"].map { try node($0, on: network, sharing: shared) }
    let (a, b) = (try remote([nodes[0]], from: client)[0], try remote([nodes[1]], from: client)[0])
    _ = try await a.pour(.add(1), to: "contested", id: "a1")
    await #expect(throws: DistributedHostError.heldElsewhere(key: "contested")) {
      try await b.pour(.add(100), to: "contested", id: "b1")
    }
    _ = try await a.pour(.add(1), to: "contested", id: "a2")
    #expect(try await a.state(of: "contested") == Tally.State(total: 2, count: 2))
  }

  /// Split brain over a key store (issue 59): the node that used the key last claimed it, and the
  /// other's next pour is refused, typed, at once (trying again there would claim it back). The
  /// key holds what each acknowledged, in order, and nothing it refused: no fork.
  @Test func overAStoreTheNodeThatLostAKeysClaimIsRefusedAndNothingForks() async throws {
    let shared = Shared(.store)
    let network = TestNetwork()
    let client = network.node("client")
    let nodes = try ["a", "b"].map { try node($0, on: network, sharing: shared) }
    let (a, b) = (try remote([nodes[0]], from: client)[0], try remote([nodes[1]], from: client)[0])
    _ = try await a.pour(.add(1), to: "contested", id: "a1")
    #expect(
      try await b.pour(.add(100), to: "contested", id: "b1") == PourReceipt(sequence: 2, duplicate: false))
    await #expect(throws: DistributedHostError.heldElsewhere(key: "contested")) {
      try await a.pour(.add(10), to: "contested", id: "a2")
    }
    _ = try await b.pour(.add(1000), to: "contested", id: "b2")
    #expect(try await b.state(of: "contested") == Tally.State(total: 1101, count: 3))
    #expect(await shared.store.owner(of: "contested") == "b")
  }

  /// Issue 59: keys poured through a router while a node joins and another leaves, over a key
  /// store and with no folder: a pour that reaches a node the key left is refused or claims it back,
  /// the caller asks the router again with the same request id, and each key ends with every pour
  /// once.
  @Test func overAStoreKeysMoveWithPoursInFlightAndEachPourIsAppliedOnce() async throws {
    let shared = Shared(.store)
    let network = TestNetwork()
    let client = network.node("client")
    let nodes = try ["a", "b", "c"].map { try node($0, on: network, sharing: shared) }
    let hosts = try remote(nodes, from: client)
    let router = LockIsolated(HostRouter(hosts: hosts.prefix(2)))
    let keys = (0..<24).map { "cart\($0)" }
    let rounds = 6
    let (done, finished) = AsyncStream<Void>.makeStream()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for key in keys {
        group.addTask {
          for round in 0..<rounds {
            try await Self.pour(Tally.Action.add(1), to: key, id: "r\(round)", through: router)
            finished.yield()
          }
        }
      }
      group.addTask {
        var count = 0
        for await _ in done {
          count += 1
          if count == keys.count {
            // c joins: the others let go of the keys it now owns, while pours go on.
            let joined = HostRouter(hosts: hosts)
            router.withValue { _ = $0.update(hosts) }
            for node in nodes.prefix(2) { try await node.host!.release(keysNotOwnedBy: joined) }
          } else if count == keys.count * 3 {
            // a leaves: it lets go of every key.
            let left = HostRouter(hosts: hosts.suffix(2))
            router.withValue { _ = $0.update(hosts.suffix(2)) }
            try await nodes[0].host!.release(keysNotOwnedBy: left)
          } else if count == keys.count * rounds {
            return
          }
        }
      }
      try await group.waitForAll()
    }
    // Every node lets go, and each key is read from the store by its owner.
    for node in nodes { try await node.host!.release(keysNotOwnedBy: HostRouter(hosts: [JSONHost]())) }
    let owners = router.value
    for key in keys {
      #expect(
        try await owners.owner(of: key)!.state(of: key) == Tally.State(total: rounds, count: rounds), "\(key)"
      )
    }
  }

  /// Pours `action` into `key` through the owner `router` names, with the request id `id`, asking
  /// again while the key is held elsewhere or failing on its node (a bounded number of times).
  private static func pour(
    _ action: Tally.Action, to key: String, id: String, through router: LockIsolated<HostRouter<JSONHost>>
  ) async throws {
    for _ in 0..<500 {
      let owner = router.value.owner(of: key)!
      do {
        _ = try await owner.pour(action, to: key, id: id)
        return
      } catch DistributedHostError.heldElsewhere, DistributedHostError.storage {
        try await Task.sleep(for: .milliseconds(5))
      }
    }
    Issue.record("\(key): request \(id) was not applied after 500 attempts")
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
