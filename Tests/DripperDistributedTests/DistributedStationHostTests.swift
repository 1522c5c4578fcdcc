import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation
import Testing

typealias LocalHost = DistributedStationHost<
  String, Tally.State, Tally.Action, LocalTestingDistributedActorSystem
>
typealias JSONHost = DistributedStationHost<String, Tally.State, Tally.Action, JSONActorSystem>

/// A host of tallies in memory, or in `folder` as `node`.
///
/// A key's diagnostics (a key another node holds) go to `diagnostics`, not to standard error, so
/// that a passing run prints nothing.
func tallyHost(
  folder: String? = nil, node: String = "local", diagnostics: LockIsolated<[String]>? = nil
) throws -> StationHost<String, Tally> {
  try tallyHost(
    storage: folder.map { .folder($0, codec: .json, node: node) } ?? .inMemory, diagnostics: diagnostics)
}

/// A host of tallies in `storage`.
func tallyHost(
  storage: HostStorage<Tally.State, Tally.Action>, diagnostics: LockIsolated<[String]>? = nil,
  retryFailedAfter: Duration = .seconds(5)
) throws -> StationHost<String, Tally> {
  try StationHost(
    storage: storage,
    lifetime: HostLifetime(idleAfter: nil, retryFailedAfter: retryFailedAfter),
    observer: StationHostObserver(diagnostic: { key, diagnostic in
      diagnostics?.withValue { $0.append("\(key): \(diagnostic.message)") }
    })
  ) { _ in
    Tally.State()
  } dripper: { _ in
    Tally()
  }
}

/// Collects the states a subscriber receives.
final class Received: Sendable {
  private let states = Lock<[Tally.State]>([])
  private let changed = AsyncStream<Void>.makeStream()

  func append(_ state: Tally.State) {
    states.withLock { $0.append(state) }
    changed.continuation.yield()
  }

  var all: [Tally.State] { states.withLock { $0 } }

  /// Waits until a state satisfies `condition` (or a bounded timeout ends the wait).
  func wait(until condition: @escaping @Sendable (Tally.State) -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .seconds(30))
    while ContinuousClock.now < deadline {
      if all.contains(where: condition) { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return all.contains(where: condition)
  }
}

@Suite struct DistributedStationHostTests {
  /// The toolchain's local testing system: calls on a local actor, through the distributed
  /// machinery.
  @Test func aKeyIsPouredReadAndObservedThroughLocalTestingDistributedActorSystem() async throws {
    let system = LocalTestingDistributedActorSystem()
    let host = LocalHost(host: try tallyHost(), actorSystem: system)
    defer { system.release([host]) }
    let first = try await host.pour(.add(5), to: "a", id: "r1")
    let retry = try await host.pour(.add(5), to: "a", id: "r1")
    #expect(first == PourReceipt(sequence: 1, duplicate: false))
    #expect(retry == PourReceipt(sequence: 1, duplicate: true))
    #expect(try await host.state(of: "a") == Tally.State(total: 5, count: 1))
    let received = Received()
    let subscriber = KeyStateSubscriber<String, Tally.State, LocalTestingDistributedActorSystem>(
      actorSystem: system
    ) { _, state in received.append(state) }
    defer { system.release([subscriber]) }
    _ = try await host.subscribe("a", subscriber)
    _ = try await host.pour(.add(2), to: "a", id: "r2")
    #expect(await received.wait { $0.total == 7 })
    try await host.finish("a")
  }

  /// A call of a later protocol version is refused, typed.
  @Test func aCallOfALaterProtocolVersionIsRefused() async throws {
    let system = LocalTestingDistributedActorSystem()
    let host = LocalHost(host: try tallyHost(), actorSystem: system)
    defer { system.release([host]) }
    await #expect(throws: DistributedHostError.unsupportedVersion(theirs: 2, ours: 1)) {
      try await host.pour(.add(1), to: "a", id: "r", version: 2)
    }
  }

  /// The serializing system: every argument, result and error crosses as JSON, generic
  /// substitutions by name, a subscriber as its id.
  @Test func everyCallCrossesAsJSON() async throws {
    let network = TestNetwork()
    let (server, client) = (network.node("server"), network.node("client"))
    let host = JSONHost(host: try tallyHost(), actorSystem: server)
    let remote = try JSONHost.resolve(id: host.id, using: client)
    #expect(try await remote.pour(.add(3), to: "a", id: "r1") == PourReceipt(sequence: 1, duplicate: false))
    #expect(try await remote.state(of: "a") == Tally.State(total: 3, count: 1))
    await #expect(throws: DistributedHostError.unsupportedVersion(theirs: 9, ours: 1)) {
      try await remote.state(of: "a", version: 9)
    }
    let received = Received()
    let subscriber = KeyStateSubscriber<String, Tally.State, JSONActorSystem>(actorSystem: client) {
      _, state in
      received.append(state)
    }
    _ = try await remote.subscribe("a", subscriber)
    _ = try await remote.pour(.add(4), to: "a", id: "r2")
    #expect(await received.wait { $0.total == 7 })
    #expect(network.calls >= 5)
  }

  /// Issue 52: a reply lost after the remote reduction ran; the retry with the same id is applied
  /// once.
  @Test func aRetryAfterALostReplyIsAppliedOnce() async throws {
    let network = TestNetwork()
    let (server, client) = (network.node("server"), network.node("client"))
    let host = JSONHost(host: try tallyHost(), actorSystem: server)
    let remote = try JSONHost.resolve(id: host.id, using: client)
    network.dropReplies(from: "server")
    await #expect(throws: NetworkFailure.replyLost("server")) {
      try await remote.pour(.add(10), to: "a", id: "pay-1")
    }
    let retry = try await remote.pour(.add(10), to: "a", id: "pay-1")
    #expect(retry == PourReceipt(sequence: 1, duplicate: true))
    #expect(try await remote.state(of: "a") == Tally.State(total: 10, count: 1))
  }

  /// The test system's frames: a call to no such function, of another frame version, or cut short is
  /// answered with an error, and the host goes on.
  @Test func aMalformedCallIsAnsweredWithAnError() async throws {
    let network = TestNetwork()
    let (server, client) = (network.node("server"), network.node("client"))
    let host = JSONHost(host: try tallyHost(), actorSystem: server)
    var encoder = client.makeInvocationEncoder()
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "key", value: "a"))
    let frame = client.callFrame(encoder, to: host.id, target: RemoteCallTarget("no such target"))
    for bytes in [frame, Data(), Data([9]) + frame.dropFirst(), frame.prefix(frame.count / 2)] {
      let reply = await server.handle(bytes)
      #expect(throws: RemoteCallFailure.self) { try server.value(ofReply: reply, as: Int.self) }
    }
    let remote = try JSONHost.resolve(id: host.id, using: client)
    #expect(try await remote.pour(.add(1), to: "a", id: "r") == PourReceipt(sequence: 1, duplicate: false))
  }
}
