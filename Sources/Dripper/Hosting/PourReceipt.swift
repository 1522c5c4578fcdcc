/// What a ``StationHost`` says of a pour made with a request id: the number of the action in the
/// key's history, and whether it was a retry of a request the key had already applied.
///
/// It is `Codable`, to be the answer a service sends back, over any transport.
public struct PourReceipt: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The action's number in the key's history: 1 for the first action the key ever reduced, one
  /// more for each after it, across activations and restarts (its journal's sequence number, for a
  /// key kept in a folder).
  public var sequence: UInt64
  /// Whether the request id had been applied before: this pour was not reduced again, and
  /// `sequence` is the first one's.
  public var duplicate: Bool

  /// A receipt.
  public init(sequence: UInt64, duplicate: Bool) {
    self.sequence = sequence
    self.duplicate = duplicate
  }

  /// `#12`, or `#12 (a retry)`.
  public var description: String { "#\(sequence)" + (duplicate ? " (a retry)" : "") }
}

/// An action type whose requests a hosted feature answers with a value: accepted, refused with a
/// reason, a new balance. Its reduction says so with ``Effect/reply(_:)``, and
/// ``StationHost/ask(_:to:id:effectsIn:)`` returns it.
///
/// ```swift
/// enum Action: Codable, Sendable, ReplyingAction {
///   typealias Reply = WalletReply        // enum WalletReply: Codable { case accepted(balance: Int), refused(String) }
///   case deposit(Int)
///   case withdraw(Int)
/// }
/// ```
///
/// A reply is kept with its request id, in the key's state and snapshots, so a retry of the id
/// gets the first answer, as a payment API's idempotent response, Akka's `thenReply` or an
/// Orleans grain method's result do. It is encoded as JSON in a snapshot; a feature whose
/// action does not conform pays nothing for replies.
public protocol ReplyingAction: Sendable {
  /// What a request is answered with.
  associatedtype Reply: Codable & Sendable
}

extension Effect where Action: ReplyingAction {
  /// Answers the request this reduction applies: ``StationHost/ask(_:to:id:effectsIn:)`` returns `reply`,
  /// and a retry of the request's id gets it again.
  ///
  /// ```swift
  /// case .withdraw(let amount):
  ///   guard state.balance >= amount else { return .reply(.refused("would overdraw")) }
  ///   state.balance -= amount
  ///   return .reply(.accepted(balance: state.balance))
  /// ```
  ///
  /// The reply belongs to the reduction of the request itself: one returned by an action the
  /// reduction sends, or an effect pours, answers nobody. Outside a ``StationHost`` it is reported
  /// as a ``Diagnostic``; a `TestStation` keeps it for the test to assert.
  public static func reply(_ reply: Action.Reply) -> Self {
    Self(.host(.reply(reply)))
  }
}

/// What a ``StationHost`` answers a request with (see ``StationHost/ask(_:to:id:effectsIn:)``): its receipt,
/// and the feature's reply.
public struct Answer<Reply: Codable & Sendable>: Sendable, Codable {
  /// The request's receipt: its number in the key's history, and whether it was a retry.
  public var receipt: PourReceipt
  /// What the feature replied, the first time the request was applied; `nil` if its reduction
  /// gave no reply.
  public var reply: Reply?

  /// An answer.
  public init(receipt: PourReceipt, reply: Reply?) {
    self.receipt = receipt
    self.reply = reply
  }
}

extension Answer: Equatable where Reply: Equatable {}
extension Answer: Hashable where Reply: Hashable {}
