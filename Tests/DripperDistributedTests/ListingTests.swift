import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation
import Testing

/// A membership listing, as `ClusterSystem`'s receptionist keeps one: a node's hosts, which other
/// nodes fetch over the wire, serialized.
distributed actor Listing {
  typealias ActorSystem = JSONActorSystem
  private var hosts: [JSONHost] = []

  distributed func register(_ host: JSONHost) { hosts.append(host) }
  distributed func listed() -> [JSONHost] { hosts }
  distributed func router() -> HostRouter<JSONHost> { HostRouter(hosts: hosts) }
}

@Suite struct ListingTests {
  /// Issue 59: a host is Codable, so a listing can serialize it and a node that fetches the listing
  /// gets hosts it can pour into (ClusterSystem logged `unableToCreateManifest` every second and no
  /// node ever found another's host).
  @Test func aHostCrossesTheWireInAListing() async throws {
    let type: Any.Type = JSONHost.self
    #expect(type is any Codable.Type)
    let network = TestNetwork()
    let (a, b) = (network.node("a"), network.node("b"))
    let host = JSONHost(host: try tallyHost(), actorSystem: a)
    let listing = Listing(actorSystem: a)
    try await listing.register(host)
    let remoteListing = try Listing.resolve(id: listing.id, using: b)
    let listed = try await remoteListing.listed()
    #expect(listed.map(\.id) == [host.id])
    #expect("\(listed[0].id)" != "\(host.id)")  // printed differently on each node, as ClusterSystem's
    let receipt = try await listed[0].pour(.add(2), to: "k", id: "1")
    #expect(receipt.sequence == 1)
    #expect(try await host.state(of: "k").total == 2)
  }

  /// Issue 59: routers built on two nodes whose ids print differently give every key the same
  /// owner (hashing an id's text, they disagreed on two thirds of the keys), and a router crosses
  /// the wire as the hosts it routes to.
  @Test func routersOnTwoNodesAgreeThoughTheirIDsPrintDifferently() async throws {
    let network = TestNetwork()
    let (a, b) = (network.node("a"), network.node("b"))
    let hostsOnA = try (0..<2).map { _ in JSONHost(host: try tallyHost(), actorSystem: a) }
    let hostsOnB = try (0..<2).map { _ in JSONHost(host: try tallyHost(), actorSystem: b) }
    let listing = Listing(actorSystem: a)
    for host in hostsOnA { try await listing.register(host) }
    for host in hostsOnB { try await Listing.resolve(id: listing.id, using: b).register(host) }
    // Node a lists its own hosts as made and b's as received; b the other way round.
    let seenOnA = try await listing.listed()
    let seenOnB = try await Listing.resolve(id: listing.id, using: b).listed()
    #expect(seenOnA.map { "\($0.id)" } != seenOnB.map { "\($0.id)" })
    let onA = HostRouter(hosts: seenOnA)
    let onB = HostRouter(hosts: seenOnB)
    let sent = try await Listing.resolve(id: listing.id, using: b).router()
    var disagreements = 0
    for key in (0..<1_000).map({ "key\($0)" }) {
      let owner = onA.owner(of: key)?.id
      if owner != onB.owner(of: key)?.id || owner != sent.owner(of: key)?.id { disagreements += 1 }
    }
    #expect(disagreements == 0)
    #expect(Set((0..<1_000).compactMap { onA.owner(of: "key\($0)")?.id }).count == 4)
  }
}
