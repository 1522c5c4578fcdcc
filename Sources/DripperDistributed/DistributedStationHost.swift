public import Distributed
public import Dripper

/// A `StationHost` reachable on a `DistributedActorSystem`: a caller on any node pours into a
/// key, reads it, waits for it and observes it, through whatever actor system the service runs
/// on — `ClusterSystem`, a WebSocket or gRPC system, `LocalTestingDistributedActorSystem`.
///
/// ```swift
/// let local = try StationHost<String, Cart>(storage: .folder("/shared/carts", codec: .json, node: "a"))
///   { _ in Cart.State() } dripper: { _ in Cart() }
/// let host = DistributedStationHost(host: local, actorSystem: system)   // <String, Cart.State, Cart.Action, …>
/// // elsewhere, with a reference to it:
/// let receipt = try await host.pour(.add(item), to: "cart-7", id: request.id)
/// ```
///
/// Only values cross the wire: actions, states, receipts and errors, all `Codable`. The key's
/// Station, its effects and their closures stay on the node that hosts it. A call that fails after
/// the remote reduction ran (a lost reply) and is retried with the same request id is applied once:
/// the key remembers its request ids (see `StationHost.pour(_:to:id:effectsIn:)`).
///
/// A host is `Codable`, as any distributed actor on a `Codable` system can be: a membership
/// listing (`ClusterSystem`'s receptionist) can serialize it, and it can be an argument or result of
/// a distributed call; it decodes to the host it names, through the decoder's actor system.
///
/// Errors a caller sees are ``DistributedHostError``s, `Codable`: a key whose storage failed, a key
/// another node holds, a call of a protocol version this node does not speak.
public distributed actor DistributedStationHost<Key, State, Action, ActorSystem>: Codable
where
  Key: StationKey & Codable, State: Sendable & Codable, Action: Sendable & Codable,
  ActorSystem: DistributedActorSystem<any Codable>, ActorSystem.ActorID: Codable
{
  // Generic over the feature's state and action rather than the feature: a distributed function's
  // parameters are resolved by the runtime on the callee from the call's generic substitutions,
  // and a type that depends on a protocol conformance (`Feature.Action`) could not be (the call
  // failed with "invalidParameterCount" on an actor system that serializes).

  /// The host whose keys this actor serves, on this node.
  public let host: AnyStationHost<Key, State, Action>
  /// The subscriptions this node serves: each a task sending a key's states to a subscriber.
  private var subscriptions: [SubscriptionID: Task<Void, Never>] = [:]

  /// The protocol version this node speaks: a request carries the caller's, and one of a later
  /// version is refused (``DistributedHostError/unsupportedVersion(theirs:ours:)``) rather than
  /// misread.
  public static var protocolVersion: Int { 1 }

  /// Serves `host` on `actorSystem`.
  ///
  /// Inlinable: the host is erased where its feature is known, so its calls run code specialized
  /// for the feature's types.
  @inlinable
  public init<Feature: Dripper>(host: StationHost<Key, Feature>, actorSystem: ActorSystem)
  where Feature.State == State, Feature.Action == Action {
    self.init(host: AnyStationHost(host), actorSystem: actorSystem)
  }

  /// Serves `host`, whose feature replies, on `actorSystem`: its requests are answered with their
  /// replies (``ask(_:to:id:version:)``).
  @inlinable
  public init<Feature: Dripper>(host: StationHost<Key, Feature>, actorSystem: ActorSystem)
  where Feature.State == State, Feature.Action == Action, Action: ReplyingAction {
    self.init(host: AnyStationHost(host), actorSystem: actorSystem)
  }

  /// Serves an erased host on `actorSystem`.
  public init(host: AnyStationHost<Key, State, Action>, actorSystem: ActorSystem) {
    self.actorSystem = actorSystem
    self.host = host
  }

  /// Pours `action` into `key` once per request `id`, and returns after its reduction with the
  /// key's receipt. A retry of the same id, after a lost reply, gets the first receipt and is not
  /// reduced again.
  ///
  /// - Parameters:
  ///   - action: The action to reduce.
  ///   - key: The key whose Station reduces it.
  ///   - id: The request's id, unique per logical request; a retry passes the same id.
  ///   - version: The caller's protocol version (``protocolVersion``).
  /// - Throws: ``DistributedHostError``.
  public distributed func pour(
    _ action: Action, to key: Key, id: String, version: Int = DistributedStationHost.protocolVersion
  ) async throws -> PourReceipt {
    try Self.check(version)
    let pour = host.pour
    do {
      return try await pour(action, key, id)
    } catch {
      // Off the way of a pour that succeeds: the retries of a key held elsewhere.
      return try await Self.retryingHeldKeys(key, after: error) { () async throws(HostError) in
        try await pour(action, key, id)
      }
    }
  }

  /// The key's state, once every action poured into it before has been reduced.
  ///
  /// - Throws: ``DistributedHostError``.
  public distributed func state(
    of key: Key, version: Int = DistributedStationHost.protocolVersion
  ) async throws -> State {
    try Self.check(version)
    let state = host.state
    do {
      return try await state(key)
    } catch {
      return try await Self.retryingHeldKeys(key, after: error) { () async throws(HostError) in
        try await state(key)
      }
    }
  }

  /// Returns once the key's pours have been reduced and their effects have ended on this node.
  public distributed func finish(_ key: Key, version: Int = DistributedStationHost.protocolVersion)
    async throws
  {
    try Self.check(version)
    await host.finish(key)
  }

  /// Passivates the key if it is resident here: what a node that no longer owns a key does before
  /// another activates it.
  public distributed func passivate(_ key: Key, version: Int = DistributedStationHost.protocolVersion)
    async throws
  {
    try Self.check(version)
    await host.passivate(key)
  }

  /// The keys resident on this node, the most recently used first.
  public distributed func residentKeys(version: Int = DistributedStationHost.protocolVersion) throws -> [Key]
  {
    try Self.check(version)
    return host.residentKeys()
  }

  /// Sends `subscriber` the key's states as they change, latest first: while a state is on its way,
  /// newer ones replace each other, so a slow subscriber costs one state of memory and never slows
  /// the key. A subscriber that cannot be reached (its node left, a call failed) is dropped. The
  /// key stays resident on this node while it has a subscriber.
  ///
  /// Returns the subscription's id, for ``unsubscribe(_:)``.
  public distributed func subscribe(
    _ key: Key, _ subscriber: KeyStateSubscriber<Key, State, ActorSystem>,
    version: Int = DistributedStationHost.protocolVersion
  ) throws -> SubscriptionID {
    try Self.check(version)
    let id = SubscriptionID()
    let states = host.states(key)
    subscriptions[id] = Task { [weak self] in
      for await state in states {
        do {
          try await subscriber.receive(state, of: key)
        } catch {
          break
        }
      }
      await self?.whenLocal { $0.ended(id) }
    }
    return id
  }

  /// Ends a subscription.
  public distributed func unsubscribe(_ id: SubscriptionID) {
    subscriptions.removeValue(forKey: id)?.cancel()
  }

  /// How many subscriptions this node serves.
  public var subscriptionCount: Int { subscriptions.count }

  /// Passivates the resident keys that `router` gives to another host: what each node does when
  /// the membership changes, before the new owners activate them.
  ///
  /// ```swift
  /// router.update(hosts)
  /// try await localHost.release(keysNotOwnedBy: router)
  /// ```
  ///
  /// A distributed call: a node may ask another to release the keys its view gives elsewhere.
  public distributed func release(keysNotOwnedBy router: HostRouter<DistributedStationHost>) async {
    for key in host.residentKeys() where router.owner(of: key)?.id != id {
      await host.passivate(key)
    }
  }

  private func ended(_ id: SubscriptionID) {
    subscriptions[id] = nil
  }

  private static func check(_ version: Int) throws {
    guard version <= protocolVersion else {
      throw DistributedHostError.unsupportedVersion(theirs: version, ours: protocolVersion)
    }
  }

  /// After `body`, a use of `key`, failed with `error`: a key held by another node (its journal
  /// locked: a handover not finished) is tried again for a few seconds, then refused with
  /// ``DistributedHostError/heldElsewhere(key:)``; any other error is thrown as it is.
  ///
  /// A key another node claimed in a shared ``KeyStore`` is refused at once: it was not waiting
  /// for a handover to end, it moved, and trying again here would claim it back from its new owner.
  private static func retryingHeldKeys<Result: Sendable>(
    _ key: Key, after error: HostError, _ body: @Sendable () async throws(HostError) -> Result
  ) async throws -> Result {
    var failure = DistributedHostError(error)
    if case .storage(_, let journal) = error, journal.isClaimedByAnotherOwner { throw failure }
    for attempt in 1...5 {
      guard case .heldElsewhere = failure else { throw failure }
      try await Task.sleep(for: .milliseconds(100 * attempt))
      do {
        return try await body()
      } catch {
        failure = DistributedHostError(error)
      }
    }
    throw failure
  }
}

/// The id of a subscription to a key's states.
public struct SubscriptionID: Hashable, Sendable, Codable, CustomStringConvertible {
  /// Its value: random, unique among a node's subscriptions.
  public let rawValue: UInt64

  /// A new id.
  public init() {
    var generator = SystemRandomNumberGenerator()
    rawValue = generator.next()
  }

  /// `subscription 1f…`.
  public var description: String { "subscription \(String(rawValue, radix: 16))" }
}

extension DistributedStationHost {
  /// The types a call to the host carries: its arguments, results and errors. An actor system that
  /// admits only registered types registers these — `ClusterSystem` refuses unregistered ones in a
  /// release build:
  ///
  /// ```swift
  /// let system = await ClusterSystem("carts") { settings in
  ///   for type in CartHost.messageTypes { settings.serialization.register(type) }
  ///   settings.remoteCall.codableErrorAllowance = .custom(allowedTypes: CartHost.errorTypes)
  /// }
  /// ```
  public static var messageTypes: [any Codable.Type] {
    guard let replying = Action.self as? any ReplyingAction.Type else { return callTypes }
    return callTypes + [replyType(of: replying)]
  }

  /// The reply type of a replying action.
  private static func replyType<Replying: ReplyingAction>(of _: Replying.Type) -> any Codable.Type {
    Replying.Reply.self
  }

  /// The types every host's calls carry.
  static var callTypes: [any Codable.Type] {
    [
      Key.self, [Key].self, State.self, Action.self, PourReceipt.self, SubscriptionID.self, String.self,
      Int.self, DistributedHostError.self, JournalError.self, DistributedStationHost.self,
      HostRouter<DistributedStationHost>.self, KeyStateSubscriber<Key, State, ActorSystem>.self,
      EncodedAnswer.self,
    ]
  }

  /// The errors a call to the host may throw back to its caller, which an actor system that ships
  /// only allowed errors back must allow (`ClusterSystem`'s `codableErrorAllowance`).
  public static var errorTypes: [any (Error & Codable).Type] {
    [DistributedHostError.self]
  }
}

extension DistributedStationHost {
  /// Pours `action` into `key` once per request `id`; the receipt and the feature's reply as JSON
  /// (what ``ask(_:to:id:version:)`` sends; a distributed function of a constrained extension is
  /// not called with the conformance it needs, so the reply crosses encoded).
  public distributed func answer(
    _ action: Action, to key: Key, id: String, version: Int = DistributedStationHost.protocolVersion
  ) async throws -> EncodedAnswer {
    try Self.check(version)
    let host = self.host
    let request: @Sendable () async throws(HostError) -> EncodedAnswer = { () async throws(HostError) in
      if let ask = host.ask { return try await ask(action, key, id) }
      return EncodedAnswer(receipt: try await host.pour(action, key, id), reply: nil)
    }
    do {
      return try await request()
    } catch {
      return try await Self.retryingHeldKeys(key, after: error, request)
    }
  }
}

extension DistributedStationHost where Action: ReplyingAction {
  /// Pours `action` into `key` once per request `id`, and returns the feature's reply with the
  /// receipt, after its reduction: what `StationHost.ask(_:to:id:effectsIn:)` returns, across the
  /// wire. A retry of the same id gets the first reply.
  ///
  /// ```swift
  /// let answer = try await owner.ask(.withdraw(30), to: "alice", id: request.idempotencyKey)
  /// ```
  ///
  /// A host erased without its feature's replies (an ``AnyStationHost`` made where the action was
  /// not known to reply) answers with no reply. A node of an older version, without this call,
  /// fails it as its actor system fails a call it does not know; nothing is applied there.
  ///
  /// - Parameters:
  ///   - action: The action to reduce.
  ///   - key: The key whose Station reduces it.
  ///   - id: The request's id, unique per logical request; a retry passes the same id.
  ///   - version: The caller's protocol version (``protocolVersion``).
  /// - Throws: ``DistributedHostError``, or the actor system's error for a call that failed.
  public nonisolated func ask(
    _ action: Action, to key: Key, id: String, version: Int = DistributedStationHost.protocolVersion
  ) async throws -> Answer<Action.Reply> {
    let answer = try await answer(action, to: key, id: id, version: version)
    return Answer(receipt: answer.receipt, reply: answer.reply(as: Action.Reply.self))
  }
}
