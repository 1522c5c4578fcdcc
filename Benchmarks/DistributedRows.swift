import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation

/// A ``DistributedStationHost``: a pour through it on the toolchain's local testing system against
/// an awaited pour with a request id into a ``StationHost``; and on the test system that encodes
/// every call and result as JSON, what encoding and decoding a pour's call costs against a bare
/// JSON round trip of the same action.
func distributedRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "distributed: `swift run -c release dripper-bench --filter distributed`"
  typealias LocalHost = DistributedStationHost<
    Int, KeyCounter.State, KeyCounter.Action, LocalTestingDistributedActorSystem
  >
  typealias JSONHost = DistributedStationHost<Int, KeyCounter.State, KeyCounter.Action, JSONActorSystem>
  let lifetime = HostLifetime(idleAfter: nil, maximumResident: 1_000)
  let plain = counterHost(lifetime: lifetime)
  let local = LocalHost(
    host: counterHost(lifetime: lifetime), actorSystem: LocalTestingDistributedActorSystem())
  let network = TestNetwork()
  let served = JSONHost(host: counterHost(lifetime: lifetime), actorSystem: network.node("server"))
  // Bound in one expression: bound by deferred initialization (`let remote: JSONHost`, then
  // `remote = try …` in a `do`), a remote reference is released once too often in a release build
  // of Swift 6.3.1, and the process crashes when the function returns.
  guard let remote = try? JSONHost.resolve(id: served.id, using: network.node("client")) else {
    fatalError("dripper-bench: no remote host")
  }
  // Request ids made before the clock starts, each used once.
  let n = options.operations(20_000)
  var round = 0
  func ids() -> [String] {
    round += 1
    return (0..<n).map { "\(round)-\($0)" }
  }

  let action = KeyCounter.Action.increase
  let times = await measureInterleaved(
    options, operations: n,
    [
      { for _ in 0..<n { await plain.pour(action, to: 1).finish() } },
      {
        let ids = ids()
        for id in ids { _ = try? await plain.pour(action, to: 1, id: id) }
      },
      {
        let ids = ids()
        for id in ids { _ = try? await local.pour(action, to: 1, id: id) }
      },
      {
        let ids = ids()
        for id in ids { _ = try? await remote.pour(action, to: 1, id: id) }
      },
      {
        for _ in 0..<n {
          guard let data = try? JSONEncoder().encode(action),
            (try? JSONDecoder().decode(KeyCounter.Action.self, from: data)) != nil
          else { fatalError("dripper-bench: the action does not round-trip") }
        }
      },
      {
        let system = network.node("client")
        let ids = ids()
        // A target of the length of the pour's mangled name.
        let target = RemoteCallTarget(String(repeating: "p", count: 160))
        for id in ids { encodeAndDecodePour(action, key: 1, id: id, on: system, target: target) }
      },
      {
        let system = network.node("client")
        let receipt = PourReceipt(sequence: 12, duplicate: false)
        for _ in 0..<n {
          guard let frame = try? system.replyFrame(returning: receipt),
            (try? system.value(ofReply: frame, as: PourReceipt.self)) == receipt
          else { fatalError("dripper-bench: the receipt does not round-trip") }
        }
      },
    ])
  let plainAwaited = "an awaited pour to a resident key through a host"
  let awaited = "an awaited pour with a request id to a resident key through a host"
  let bare = "a bare JSONEncoder and JSONDecoder round trip of the action"
  return [
    Row(group: group, name: plainAwaited, nanoseconds: times[0]),
    Row(
      group: group, name: awaited, nanoseconds: times[1], baseline: plainAwaited, target: 16, bound: 60,
      note: "its ticket, its id remembered, its receipt"),
    Row(
      group: group, name: "the same through a distributed host, local testing system", nanoseconds: times[2],
      baseline: awaited, target: 2, bound: 6),
    Row(group: group, name: bare, nanoseconds: times[4]),
    Row(
      group: group, name: "encoding and decoding a pour's call on the JSON test system",
      nanoseconds: times[5],
      baseline: bare, target: 1.5, bound: 4, note: "its four arguments and its frame, both ways"),
    Row(
      group: group, name: "encoding and decoding its reply, a receipt", nanoseconds: times[6], baseline: bare,
      note: "beside the call, not in it"),
    Row(
      group: group, name: "a pour through the JSON test system, less one through local testing",
      nanoseconds: max(0, times[3] - times[2]), baseline: bare,
      note: "both encodings, the wire's hops, and the runtime's executeDistributedTarget"),
  ]
}

/// What a call to ``DistributedStationHost/pour(_:to:id:version:)`` costs the JSON test system,
/// both ways: the caller's recording of its generic substitutions and arguments and the call's
/// frame, and the callee's reading of them — everything but the runtime's lookup of the target and
/// the run of the call.
func encodeAndDecodePour(
  _ action: KeyCounter.Action, key: Int, id: String, on system: JSONActorSystem, target: RemoteCallTarget
) {
  do {
    var encoder = system.makeInvocationEncoder()
    try encoder.recordGenericSubstitution(Int.self)
    try encoder.recordGenericSubstitution(KeyCounter.State.self)
    try encoder.recordGenericSubstitution(KeyCounter.Action.self)
    try encoder.recordGenericSubstitution(JSONActorSystem.self)
    try encoder.recordArgument(RemoteCallArgument(label: nil, name: "action", value: action))
    try encoder.recordArgument(RemoteCallArgument(label: "to", name: "key", value: key))
    try encoder.recordArgument(RemoteCallArgument(label: "id", name: "id", value: id))
    try encoder.recordArgument(RemoteCallArgument(label: "version", name: "version", value: 1))
    try encoder.recordErrorType((any Error).self)
    try encoder.recordReturnType(PourReceipt.self)
    try encoder.doneRecording()
    let frame = system.callFrame(consume encoder, to: NodeActorID(node: "server", number: 1), target: target)
    var (_, decoder) = try system.invocationDecoder(callFrame: frame)
    _ = try decoder.decodeGenericSubstitutions()
    let decoded: KeyCounter.Action = try decoder.decodeNextArgument()
    let decodedKey: Int = try decoder.decodeNextArgument()
    let decodedID: String = try decoder.decodeNextArgument()
    let version: Int = try decoder.decodeNextArgument()
    guard decoded == action, decodedKey == key, decodedID == id, version == 1 else {
      fatalError("dripper-bench: the call does not round-trip")
    }
  } catch {
    fatalError("dripper-bench: the call does not round-trip: \(error)")
  }
}
