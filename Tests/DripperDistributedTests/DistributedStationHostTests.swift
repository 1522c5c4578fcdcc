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
    for bytes in [frame, [], [9] + frame.dropFirst(), Array(frame.prefix(frame.count / 2)), frame + [0]] {
      let reply = await server.handle(bytes)
      #expect(throws: RemoteCallFailure.self) { try server.value(ofReply: reply, as: Int.self) }
    }
    let remote = try JSONHost.resolve(id: host.id, using: client)
    #expect(try await remote.pour(.add(1), to: "a", id: "r") == PourReceipt(sequence: 1, duplicate: false))
  }

  /// The test system writes strings, integers and booleans itself: each reads back as it was at
  /// the edges of its type, a string with quotes, backslashes and control characters included.
  @Test func theTestSystemsOwnArgumentsReadBackAtTheirEdges() throws {
    let system = TestNetwork().node("client")
    let strings = [
      "", "plain", "a \"quoted\" \\ back\u{1}slash\n", "é 🎉", String(repeating: "k", count: 10_000),
    ]
    let integers = [Int.min, -1, 0, 7, Int.max]
    var encoder = system.makeInvocationEncoder()
    for string in strings {
      try encoder.recordArgument(RemoteCallArgument(label: nil, name: "s", value: string))
    }
    for integer in integers {
      try encoder.recordArgument(RemoteCallArgument(label: nil, name: "i", value: integer))
    }
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "min", value: Int64.min))
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "max", value: UInt64.max))
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "yes", value: true))
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "no", value: false))
    try encoder.doneRecording()
    let frame = system.callFrame(
      encoder, to: NodeActorID(node: "server", number: 1), target: RemoteCallTarget("t"))
    var (_, decoder) = try system.invocationDecoder(callFrame: frame)
    for string in strings { #expect(try decoder.decodeNextArgument() as String == string) }
    for integer in integers { #expect(try decoder.decodeNextArgument() as Int == integer) }
    #expect(try decoder.decodeNextArgument() as Int64 == .min)
    #expect(try decoder.decodeNextArgument() as UInt64 == .max)
    #expect(try decoder.decodeNextArgument() as Bool == true)
    #expect(try decoder.decodeNextArgument() as Bool == false)
    #expect(throws: RemoteCallFailure.self) { try decoder.decodeNextArgument() as Int }
    // Replies are written the same way.
    for string in strings {
      #expect(try system.value(ofReply: system.replyFrame(returning: string), as: String.self) == string)
    }
    #expect(try system.value(ofReply: system.replyFrame(returning: Int.min), as: Int.self) == .min)
    #expect(try system.value(ofReply: system.replyFrame(returning: UInt64.max), as: UInt64.self) == .max)
    #expect(try system.value(ofReply: system.replyFrame(returning: false), as: Bool.self) == false)
  }

  /// An integer argument that is not JSON (a leading zero, a sign JSON has not) or out of range is
  /// refused, never read as some other number. JSON the system does not write itself reads as
  /// `JSONDecoder` reads it.
  @Test func anIntegerArgumentIsReadAsJSONReadsIt() throws {
    let system = TestNetwork().node("server")
    func decoded(_ text: String) throws -> Int {
      var (_, decoder) = try system.invocationDecoder(
        callFrame: Self.callFrame(arguments: [Array(text.utf8)]))
      return try decoder.decodeNextArgument()
    }
    for text in ["007", "-", "", "9223372036854775808", "-9223372036854775809", "+1", "1.5", "\"1\""] {
      #expect(throws: (any Error).self, "\(text)") { try decoded(text) }
    }
    #expect(try decoded("1e3") == 1_000)
    #expect(try decoded(" 1 ") == 1)
    #expect(try decoded("-0") == 0)
  }

  /// A generic substitution recorded after an argument is refused: the frame writes them first.
  @Test func aSubstitutionAfterAnArgumentIsRefused() throws {
    var encoder = TestNetwork().node("client").makeInvocationEncoder()
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "key", value: "a"))
    #expect(throws: RemoteCallFailure.self) { try encoder.recordGenericSubstitution(Int.self) }
  }

  /// A call's frame as version 2 writes it, by hand: no substitutions, `arguments` as they are, to
  /// actor 1 on node `server`.
  static func callFrame(arguments: [[UInt8]]) -> [UInt8] {
    func integer(_ value: Int) -> [UInt8] {
      (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    func field(_ bytes: [UInt8]) -> [UInt8] { integer(bytes.count) + bytes }
    return [2] + integer(0) + integer(arguments.count) + arguments.flatMap(field)
      + field(Array("server".utf8))
      + integer(1) + field(Array("t".utf8))
  }
}
