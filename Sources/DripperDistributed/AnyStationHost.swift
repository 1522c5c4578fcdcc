public import Dripper

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A `StationHost` of any feature whose state is `State` and action `Action`: what a
/// ``DistributedStationHost`` serves, through closures made where the feature is known.
public struct AnyStationHost<Key: StationKey, State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let pour: @Sendable (Action, Key, String) async throws(HostError) -> PourReceipt
  @usableFromInline let state: @Sendable (Key) async throws(HostError) -> State
  @usableFromInline let finish: @Sendable (Key) async -> Void
  @usableFromInline let passivate: @Sendable (Key) async -> Void
  @usableFromInline let states: @Sendable (Key) -> AsyncStream<State>
  @usableFromInline let residentKeys: @Sendable () -> [Key]
  /// A request with its reply as JSON, for a feature whose action is a `ReplyingAction`.
  @usableFromInline let ask: (@Sendable (Action, Key, String) async throws(HostError) -> EncodedAnswer)?

  /// The host, erased. Inlinable: its closures are made where the feature is known, and run
  /// code specialized for it.
  @inlinable
  public init<Feature: Dripper>(_ host: StationHost<Key, Feature>)
  where Feature.State == State, Feature.Action == Action {
    pour = { action, key, id throws(HostError) in try await host.pour(action, to: key, id: id) }
    state = { key throws(HostError) in try await host.state(of: key) }
    finish = { key in await host.finish(key) }
    passivate = { key in await host.passivate(key) }
    states = { key in host.states(of: key) }
    residentKeys = { host.residentKeys }
    ask = nil
  }

  /// The host of a feature that replies, erased: its requests answered with their replies
  /// (``DistributedStationHost/ask(_:to:id:version:)``).
  @inlinable
  public init<Feature: Dripper>(_ host: StationHost<Key, Feature>)
  where Feature.State == State, Feature.Action == Action, Action: ReplyingAction {
    pour = { action, key, id throws(HostError) in try await host.pour(action, to: key, id: id) }
    state = { key throws(HostError) in try await host.state(of: key) }
    finish = { key in await host.finish(key) }
    passivate = { key in await host.passivate(key) }
    states = { key in host.states(of: key) }
    residentKeys = { host.residentKeys }
    ask = { action, key, id throws(HostError) in
      let answer = try await host.ask(action, to: key, id: id)
      return EncodedAnswer(receipt: answer.receipt, reply: answer.reply.flatMap(EncodedAnswer.encode))
    }
  }
}

/// What a ``DistributedStationHost`` answers a request with, across the wire: the receipt, and the
/// feature's reply as JSON, which ``DistributedStationHost/ask(_:to:id:version:)`` decodes on the
/// caller's node as the feature's `Reply`.
public struct EncodedAnswer: Sendable, Codable, Hashable {
  /// The request's receipt.
  public var receipt: PourReceipt
  /// The reply, as JSON; `nil` when the reduction gave none.
  public var reply: [UInt8]?

  /// An answer of `receipt` and `reply`.
  public init(receipt: PourReceipt, reply: [UInt8]?) {
    self.receipt = receipt
    self.reply = reply
  }

  /// `reply` as JSON.
  @usableFromInline
  static func encode(_ reply: some Encodable) -> [UInt8]? {
    (try? JSONEncoder().encode(reply)).map { Array($0) }
  }

  /// The reply as `type`, `nil` if there is none or it does not decode.
  func reply<Reply: Decodable>(as type: Reply.Type) -> Reply? {
    reply.flatMap { try? JSONDecoder().decode(Reply.self, from: Data($0)) }
  }
}
