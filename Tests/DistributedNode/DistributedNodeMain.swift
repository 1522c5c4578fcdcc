import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation

/// `DistributedNode NAME SOCKETS STORAGE`: a node of the distributed tests, in a process of its own.
/// It hosts tallies in STORAGE (shared with the other nodes) as node NAME, serves its
/// `DistributedStationHost` on the Unix socket SOCKETS/NAME.sock with the tests' JSON actor system,
/// writes `ready NAME/1` (the host's id) and runs until it is killed.
@main
enum DistributedNodeMain {
  static func main() async throws {
    // Ends with the test process that started it, however that ends: a node left running kept
    // the test's output pipe open, and `swift test` waited for it forever. (Linux's
    // PR_SET_PDEATHSIG is not in the Glibc module; the parent's id changes when it dies.)
    let parent = getppid()
    Task.detached {
      while getppid() == parent { try? await Task.sleep(for: .milliseconds(200)) }
      exit(0)
    }
    let arguments = CommandLine.arguments
    guard arguments.count == 4 else {
      FileHandle.standardError.write(Data("usage: DistributedNode NAME SOCKETS STORAGE\n".utf8))
      exit(2)
    }
    let (name, sockets, storage) = (arguments[1], arguments[2], arguments[3])
    let wire = SocketWire(directory: sockets)
    let system = JSONActorSystem(node: name, wire: wire)
    let local = try StationHost<String, Tally>(
      storage: .folder(storage, codec: .json, node: name), lifetime: HostLifetime(idleAfter: nil)
    ) { _ in
      Tally.State()
    } dripper: { _ in
      Tally()
    }
    let host = DistributedStationHost(host: local, actorSystem: system)
    try wire.serve(system)
    FileHandle.standardOutput.write(Data("ready \(host.id.node)/\(host.id.number)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3_600)) }
  }
}
