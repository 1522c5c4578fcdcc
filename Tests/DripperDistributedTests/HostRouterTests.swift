import Distributed
import DistributedTestSupport
import DripperDistributed
import Testing

@Suite struct HostRouterTests {
  private func hosts(_ names: [String], on system: LocalTestingDistributedActorSystem) throws -> [LocalHost] {
    try names.map { _ in LocalHost(host: try tallyHost(), actorSystem: system) }
  }

  /// Every node that sees the same hosts, in any order, gives a key the same owner.
  @Test func theSameHostsInAnyOrderGiveEachKeyTheSameOwner() throws {
    let system = LocalTestingDistributedActorSystem()
    let all = try hosts(["a", "b", "c", "d"], on: system)
    defer { system.release(all) }
    let one = HostRouter(hosts: all)
    let other = HostRouter(hosts: all.reversed() + all)
    for key in (0..<1_000).map({ "key\($0)" }) {
      #expect(one.owner(of: key)?.id == other.owner(of: key)?.id)
    }
  }

  /// Rendezvous hashing: a host that joins takes only keys it now weighs highest, from the others;
  /// a host that leaves gives only its own keys, spread over the others. About a fair share moves.
  @Test func aHostJoiningOrLeavingMovesOnlyTheKeysItMust() throws {
    let system = LocalTestingDistributedActorSystem()
    let all = try hosts(["a", "b", "c", "d", "e"], on: system)
    defer { system.release(all) }
    let keys = (0..<10_000).map { "key\($0)" }
    let four = HostRouter(hosts: Array(all.prefix(4)))
    let five = HostRouter(hosts: all)
    var moved = 0
    for key in keys {
      let before = four.owner(of: key)!.id
      let after = five.owner(of: key)!.id
      if before != after {
        moved += 1
        #expect(after == all[4].id, "a key moved between two hosts that stayed")
      }
    }
    #expect(moved > 1_500 && moved < 2_500, "\(moved) of 10,000 keys moved to the fifth host")
    // Each of the four has about a quarter.
    for host in all.prefix(4) {
      let owned = keys.count { four.owner(of: $0)?.id == host.id }
      #expect(owned > 2_000 && owned < 3_000)
    }
  }

  @Test func noHostsNoOwner() {
    let router = HostRouter<LocalHost>(hosts: [])
    #expect(router.owner(of: "a") == nil)
  }
}

extension LocalTestingDistributedActorSystem {
  /// Lets `actors` go: this system keeps every actor it gave an id to until the id is resigned,
  /// which an actor's deinit does, so an actor on it is never released by itself (a scratch
  /// program: no deinit), and LeakSanitizer reported every host a test made on it.
  func release<Actor: DistributedActor>(_ actors: [Actor])
  where Actor.ActorSystem == LocalTestingDistributedActorSystem {
    for actor in actors { resignID(actor.id) }
  }
}
