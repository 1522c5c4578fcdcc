public import Distributed
import Dripper
public import Foundation
import Synchronization

/// An actor's id on a ``JSONActorSystem``: the node it lives on and its number there.
///
/// It prints as `ClusterSystem`'s ids do: an id made on its own node without the node
/// (`/user/7`), one that came over the wire with it (`sact://a/user/7`). Equality, hashing and the
/// encoding ignore how it prints: code that keys anything by an id's text disagrees between nodes.
public struct NodeActorID: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The node the actor lives on.
  public let node: String
  /// Its number on its node.
  public let number: UInt64
  /// Whether it came over the wire (decoded), which makes it print its node.
  private var received = false

  /// Makes one, as its own node does.
  public init(node: String, number: UInt64) {
    self.node = node
    self.number = number
  }

  /// Reads one that came over the wire.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    node = try container.decode(String.self, forKey: .node)
    number = try container.decode(UInt64.self, forKey: .number)
    received = true
  }

  /// Writes the node and the number.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(node, forKey: .node)
    try container.encode(number, forKey: .number)
  }

  private enum CodingKeys: String, CodingKey { case node, number }

  /// The same node and number, however each prints.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.node == rhs.node && lhs.number == rhs.number }

  /// Hashes the node and the number.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(node)
    hasher.combine(number)
  }

  /// `/user/NUMBER` as made on its node, `sact://NODE/user/NUMBER` as received.
  public var description: String { received ? "sact://\(node)/user/\(number)" : "/user/\(number)" }
}

/// A distributed actor system for the tests: every call and every result is encoded as JSON, through
/// the invocation encoder and decoder and `executeDistributedTarget`, and crosses a ``Wire`` as
/// bytes — to another system in the process (``TestNetwork``), or in another process
/// (``SocketWire``). So every `Codable` path of a distributed host, and every generic substitution
/// of its calls, is exercised as a real engine would exercise it.
public final class JSONActorSystem: DistributedActorSystem, Sendable {
  /// A node and a number.
  public typealias ActorID = NodeActorID
  /// Everything that crosses is Codable.
  public typealias SerializationRequirement = any Codable
  /// Records a call as JSON.
  public typealias InvocationEncoder = JSONInvocationEncoder
  /// Reads a call back.
  public typealias InvocationDecoder = JSONInvocationDecoder
  /// Keeps what the callee returned.
  public typealias ResultHandler = JSONResultHandler

  /// This node's name.
  public let node: String
  private let wire: any Wire
  private let actors = Lock<[NodeActorID: Registered]>([:])
  private let nextNumber = Atomic<UInt64>(1)
  private let types = Lock<[String: Any.Type]>([:])
  /// The last substitutions read, and their types: most calls to a node are to one generic actor.
  private let lastSubstitutions = Lock<(bytes: [UInt8], types: [Any.Type])>(([], []))

  /// What runs a call on a local actor, kept without keeping the actor.
  private struct Registered: Sendable {
    let execute:
      @Sendable (inout JSONInvocationDecoder, JSONResultHandler, RemoteCallTarget) async throws -> Bool
  }

  /// A node named `node`, whose calls to other nodes go through `wire`.
  public init(node: String, wire: any Wire) {
    self.node = node
    self.wire = wire
  }

  /// Nil: a local actor runs its calls itself, any other is a proxy.
  public func resolve<Act>(id: ActorID, as actorType: Act.Type) throws -> Act?
  where Act: DistributedActor, Act.ID == ActorID {
    // A local actor is found by its id; any other is a proxy, reached through the wire.
    guard id.node == node else { return nil }
    return nil
  }

  /// The next number on this node.
  public func assignID<Act>(_ actorType: Act.Type) -> ActorID where Act: DistributedActor, Act.ID == ActorID {
    NodeActorID(node: node, number: nextNumber.add(1, ordering: .relaxed).oldValue)
  }

  /// Registers a local actor, to run the calls that reach it.
  public func actorReady<Act>(_ actor: Act) where Act: DistributedActor, Act.ID == ActorID {
    // Neither the actor nor this system is kept: the system holds what it registers, and a strong
    // reference to itself here made a cycle that LeakSanitizer reported.
    let registered = Registered { [weak actor, weak self] decoder, handler, target in
      guard let actor, let self else { return false }
      try await self.executeDistributedTarget(
        on: actor, target: target, invocationDecoder: &decoder, handler: handler)
      return true
    }
    actors.withLock { $0[actor.id] = registered }
  }

  /// Forgets a local actor.
  public func resignID(_ id: ActorID) {
    _ = actors.withLock { $0.removeValue(forKey: id) }
  }

  /// A new encoder.
  public func makeInvocationEncoder() -> InvocationEncoder {
    JSONInvocationEncoder()
  }

  /// Sends a call and decodes its result.
  public func remoteCall<Act, Err, Res>(
    on actor: Act, target: RemoteCallTarget, invocation: inout InvocationEncoder, throwing: Err.Type,
    returning: Res.Type
  ) async throws -> Res where Act: DistributedActor, Act.ID == ActorID, Err: Error, Res: Codable {
    let frame = try await wire.deliver(
      callFrame(invocation.take(), to: actor.id, target: target), from: node, to: actor.id.node)
    return try value(ofReply: frame, as: Res.self)
  }

  /// Sends a call that returns nothing.
  public func remoteCallVoid<Act, Err>(
    on actor: Act, target: RemoteCallTarget, invocation: inout InvocationEncoder, throwing: Err.Type
  ) async throws where Act: DistributedActor, Act.ID == ActorID, Err: Error {
    let reply = try await call(actor.id, target: target, invocation: invocation.take())
    guard case .void = reply else { throw try Self.error(of: reply) }
  }

  private func call(_ id: NodeActorID, target: RemoteCallTarget, invocation: consuming JSONInvocationEncoder)
    async throws
    -> Reply
  {
    let frame = try await wire.deliver(callFrame(invocation, to: id, target: target), from: node, to: id.node)
    return try Reply(frame: frame)
  }

  /// The bytes of a call, as they cross the wire: what `invocation` recorded, then the actor and
  /// the target, written into its own buffer.
  public func callFrame(
    _ invocation: consuming JSONInvocationEncoder, to actor: NodeActorID, target: RemoteCallTarget
  ) -> [UInt8] {
    try? invocation.doneRecording()
    var frame = invocation.frame
    frame.append(actor.node)
    frame.append(actor.number)
    frame.append(target.identifier)
    return frame.bytes
  }

  /// A decoder of the call a frame carries, and the actor it calls: what the callee reads.
  public func invocationDecoder(callFrame frame: [UInt8]) throws -> (NodeActorID, JSONInvocationDecoder) {
    let call = try Call(frame: frame)
    return (call.actor, JSONInvocationDecoder(call: call, system: self))
  }

  /// The bytes of a reply that returns `value`, as they cross the wire.
  public func replyFrame<Value: Codable>(returning value: Value) throws -> [UInt8] {
    Reply.value(try JSONValue.encode(value)[...]).frame
  }

  /// The value a reply's frame returns.
  public func value<Value: Codable>(ofReply frame: [UInt8], as type: Value.Type) throws -> Value {
    let reply = try Reply(frame: frame)
    guard case .value(let json) = reply else { throw try Self.error(of: reply) }
    return try JSONValue.decode(Value.self, from: json, on: self)
  }

  /// A decoder that resolves the distributed actors it decodes on this system.
  func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    // Set whole: assigning one key reads the decoder's options, copies them and writes them back.
    decoder.userInfo = [.actorSystemKey: self]
    return decoder
  }

  /// The types of a call's generic substitutions, by their mangled names: the last call's are
  /// compared as bytes, without making strings, since most calls to a node are to one generic
  /// actor.
  func types(of call: Call) throws -> [Any.Type] {
    let names = call.frame[call.substitutions]
    let cached = lastSubstitutions.withLock { last in
      last.bytes.count == names.count
        && last.bytes.withUnsafeBytes { last in
          names.withUnsafeBytes { memcmp(last.baseAddress!, $0.baseAddress!, names.count) == 0 }
        } ? last.types : nil
    }
    if let cached { return cached }
    var reader = FrameReader(call.frame, at: call.substitutions.lowerBound)
    let types = try (0..<call.substitutionCount).map { _ in try type(named: reader.string()) }
    lastSubstitutions.withLock { $0 = (Array(names), types) }
    return types
  }

  /// The type a mangled name stands for, looked up once per name: the runtime's lookup costs more
  /// than the rest of a small call.
  func type(named name: String) throws -> Any.Type {
    if let type = types.withLock({ $0[name] }) { return type }
    guard let type = _typeByName(name) else {
      throw RemoteCallFailure(message: "no type \(name) in this process")
    }
    types.withLock { $0[name] = type }
    return type
  }

  // MARK: - Serving

  /// Runs a call that came through the wire on the local actor it names; the reply, encoded.
  public func handle(_ frame: [UInt8]) async -> [UInt8] {
    let reply: Reply
    do {
      var (actor, decoder) = try invocationDecoder(callFrame: frame)
      guard let registered = actors.withLock({ $0[actor] }) else {
        throw RemoteCallFailure(message: "no actor \(actor) on node \(node)")
      }
      let handler = JSONResultHandler()
      guard try await registered.execute(&decoder, handler, RemoteCallTarget(decoder.call.target)) else {
        throw RemoteCallFailure(message: "the actor \(actor) is gone")
      }
      reply = handler.reply ?? .error(ErrorEnvelope(RemoteCallFailure(message: "the call returned nothing")))
    } catch {
      reply = .error(ErrorEnvelope(error))
    }
    return reply.frame
  }

  /// The error a reply carries: the callee's, decoded as its own type when it is `Codable`.
  static func error(of reply: Reply) throws -> any Error {
    guard case .error(let envelope) = reply else {
      return RemoteCallFailure(message: "the reply does not match the call")
    }
    return envelope.decoded()
  }
}

/// A call as it crosses the wire: a frame of its generic substitutions, its arguments (each as
/// JSON), its actor and its target. What the callee reads: the frame is checked whole when it
/// arrives, and each part is read from it when asked for.
public struct Call: Sendable {
  /// The whole frame.
  let frame: [UInt8]
  /// The actor called.
  public let actor: NodeActorID
  private let targetBytes: Range<Int>
  /// Where the fields of the generic arguments' mangled names are, and how many.
  let substitutions: Range<Int>
  let substitutionCount: UInt64
  /// Where the first argument's field is, and how many there are.
  let firstArgument: Int
  let argumentCount: UInt64

  /// The mangled name of the function.
  public var target: String { String(decoding: frame[targetBytes], as: UTF8.self) }

  /// Reads a call's frame; one of another version, cut short or with bytes after its last field
  /// is refused.
  init(frame: [UInt8]) throws {
    var reader = try FrameReader(frame)
    substitutionCount = try reader.integer()
    let substitutionsStart = reader.offset
    try reader.skipFields(substitutionCount)
    substitutions = substitutionsStart..<reader.offset
    argumentCount = try reader.integer()
    firstArgument = reader.offset
    try reader.skipFields(argumentCount)
    actor = NodeActorID(node: try reader.string(), number: try reader.integer())
    targetBytes = try reader.field()
    guard reader.atEnd else {
      throw RemoteCallFailure(
        message: "a frame with \(frame.count - reader.offset) bytes after its last field")
    }
    self.frame = frame
  }
}

/// A reply as it crosses the wire.
public enum Reply: Sendable {
  case value(ArraySlice<UInt8>)
  case void
  case error(ErrorEnvelope)

  /// Reads a reply's frame.
  init(frame: [UInt8]) throws {
    var reader = try FrameReader(frame)
    switch try reader.integer() {
    case 0: self = .value(frame[try reader.field()])
    case 1: self = .void
    case 2:
      let type = try reader.string()
      let json = frame[try reader.field()]
      self = .error(
        ErrorEnvelope(
          type: type.isEmpty ? nil : type, json: json.isEmpty ? nil : Data(json),
          description: try reader.string()))
    case let kind: throw RemoteCallFailure(message: "a reply of unknown kind \(kind)")
    }
    guard reader.atEnd else {
      throw RemoteCallFailure(
        message: "a frame with \(frame.count - reader.offset) bytes after its last field")
    }
  }

  /// The reply's frame.
  var frame: [UInt8] {
    var writer = FrameWriter()
    switch self {
    case .value(let json):
      writer.append(0)
      writer.append(json)
    case .void:
      writer.append(1)
    case .error(let envelope):
      writer.append(2)
      writer.append(envelope.type ?? "")
      writer.append(envelope.json ?? Data())
      writer.append(envelope.description)
    }
    return writer.bytes
  }
}

/// An error as it crosses the wire: its type's mangled name and its JSON, when it is `Codable`, else
/// its description.
public struct ErrorEnvelope: Sendable {
  /// The error type's mangled name, when it is Codable.
  public let type: String?
  /// The error as JSON, when it is Codable.
  public let json: Data?
  /// In one line.
  public let description: String

  init(type: String?, json: Data?, description: String) {
    self.type = type
    self.json = json
    self.description = description
  }

  init(_ error: any Error) {
    description = "\(error)"
    if let codable = error as? any (Error & Codable), let json = try? JSONEncoder().encode(codable) {
      type = _mangledTypeName(Swift.type(of: codable))
      self.json = json
    } else {
      type = nil
      json = nil
    }
  }

  /// The error, of its own type when it can be decoded.
  func decoded() -> any Error {
    guard let type, let json, let errorType = _typeByName(type) as? any (Error & Codable).Type,
      let error = try? JSONDecoder().decode(errorType, from: json)
    else { return RemoteCallFailure(message: description) }
    return error
  }
}

/// A call that failed on the way or in the callee, with an error that is not `Codable`.
public struct RemoteCallFailure: Error, Codable, Sendable, CustomStringConvertible {
  /// What failed.
  public let message: String
  /// In one line.
  public var description: String { message }
}

/// Records a call's generic substitutions (by mangled name) and arguments (as JSON) into the front
/// of its frame, as they come; ``JSONActorSystem/callFrame(_:to:target:)`` writes the rest.
public struct JSONInvocationEncoder: DistributedTargetInvocationEncoder {
  /// Everything that crosses is Codable.
  public typealias SerializationRequirement = any Codable

  /// The frame so far: its version, the substitutions' count and names, then the arguments' count
  /// and JSON. Each count is written over as the next one is recorded.
  /// 512 bytes: a call's target is a mangled name of some 160, and each substitution some 40.
  private(set) var frame = FrameWriter(capacity: 512)
  private var substitutionCount: UInt64 = 0
  /// Where the arguments' count is, once the first is recorded.
  private var argumentCountAt: Int?
  private var argumentCount: UInt64 = 0

  init() {
    frame.append(UInt64(0))
  }

  /// This encoder, leaving an empty one in its place: the frame then has one owner, and its header
  /// is written into its buffer without a copy.
  mutating func take() -> JSONInvocationEncoder {
    var taken = JSONInvocationEncoder(frame: .spent)
    swap(&taken, &self)
    return taken
  }

  private init(frame: FrameWriter) {
    self.frame = frame
  }

  /// Records a generic argument by its mangled name; before any argument, as the runtime does.
  public mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
    guard argumentCountAt == nil else {
      throw RemoteCallFailure(message: "a generic substitution recorded after an argument")
    }
    frame.append(try Self.mangledName(of: T.self))
    substitutionCount += 1
    frame.set(substitutionCount, at: 1)
  }

  /// The mangled names of the types calls substitute, each made once: the runtime's mangling
  /// allocates, and a node calls few generic actors.
  private static let mangledNames = Lock<[ObjectIdentifier: [UInt8]]>([:])

  private static func mangledName(of type: Any.Type) throws -> [UInt8] {
    if let name = mangledNames.withLock({ $0[ObjectIdentifier(type)] }) { return name }
    guard let name = _mangledTypeName(type) else {
      throw RemoteCallFailure(message: "\(type) has no mangled name")
    }
    let bytes = Array(name.utf8)
    mangledNames.withLock { $0[ObjectIdentifier(type)] = bytes }
    return bytes
  }

  /// Records an argument as JSON.
  public mutating func recordArgument<Value: Codable>(_ argument: RemoteCallArgument<Value>) throws {
    let countAt = argumentCountAt ?? startArguments()
    try JSONValue.append(argument.value, to: &frame)
    argumentCount += 1
    frame.set(argumentCount, at: countAt)
  }

  /// Writes the arguments' count, none so far; where it is.
  private mutating func startArguments() -> Int {
    let countAt = frame.count
    argumentCountAt = countAt
    frame.append(UInt64(0))
    return countAt
  }

  /// Nothing to record.
  public mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}

  /// Nothing to record.
  public mutating func recordReturnType<R: Codable>(_ type: R.Type) throws {}

  /// Writes the arguments' count, if no argument was recorded.
  public mutating func doneRecording() throws {
    if argumentCountAt == nil { _ = startArguments() }
  }
}

/// Reads a call's substitutions and arguments back, resolving the distributed actors among them.
public struct JSONInvocationDecoder: DistributedTargetInvocationDecoder {
  /// Everything that crosses is Codable.
  public typealias SerializationRequirement = any Codable

  let call: Call
  let system: JSONActorSystem
  /// How many arguments were read, and where the next one's field is.
  private var read: UInt64 = 0
  private var nextArgument: Int

  init(call: Call, system: JSONActorSystem) {
    self.call = call
    self.system = system
    nextArgument = call.firstArgument
  }

  /// The generic arguments, by name.
  public mutating func decodeGenericSubstitutions() throws -> [Any.Type] {
    try system.types(of: call)
  }

  /// The next argument, from JSON.
  public mutating func decodeNextArgument<Argument: Codable>() throws -> Argument {
    guard read < call.argumentCount else { throw RemoteCallFailure(message: "an argument is missing") }
    var reader = FrameReader(call.frame, at: nextArgument)
    let json = try reader.field()
    read += 1
    nextArgument = json.upperBound
    return try JSONValue.decode(Argument.self, from: call.frame[json], on: system)
  }

  /// Not recorded.
  public mutating func decodeErrorType() throws -> Any.Type? { nil }

  /// Not recorded.
  public mutating func decodeReturnType() throws -> Any.Type? { nil }
}

/// Keeps what the callee returned or threw, encoded.
public final class JSONResultHandler: DistributedTargetInvocationResultHandler, Sendable {
  /// Everything that crosses is Codable.
  public typealias SerializationRequirement = any Codable

  private let result = Lock<Reply?>(nil)

  var reply: Reply? { result.withLock { $0 } }

  /// Keeps the value, as JSON.
  public func onReturn<Success: Codable>(value: Success) async throws {
    let json = try JSONValue.encode(value)
    result.withLock { $0 = .value(json[...]) }
  }

  /// Keeps that nothing was returned.
  public func onReturnVoid() async throws {
    result.withLock { $0 = .void }
  }

  /// Keeps the error.
  public func onThrow<Err: Error>(error: Err) async throws {
    result.withLock { $0 = .error(ErrorEnvelope(error)) }
  }
}

/// Carries encoded calls from one node to another, and their encoded replies back.
public protocol Wire: Sendable {
  func deliver(_ call: [UInt8], from node: String, to target: String) async throws -> [UInt8]
}
