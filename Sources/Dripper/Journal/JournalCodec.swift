#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How a durable journal, or a ``StationHost``'s storage, writes a feature's actions and states as
/// text, and reads them back: an action is one journal entry, a state one snapshot.
///
/// A `Codable` feature needs one line:
///
/// ```swift
/// let durable = DurableJournal(directory: "state/cart", codec: .json)   // Cart.State, Cart.Action: Codable
/// ```
///
/// Write your own for a format of your own (smaller entries, text a person can read):
///
/// ```swift
/// let codec = JournalCodec<Counter.State, Counter.Action>(
///   encodeAction: { "\($0)" }, decodeAction: { try Counter.Action(journaled: $0) },
///   encodeState: { "\($0.count)" }, decodeState: { Counter.State(count: Int($0) ?? 0) })
/// ```
public struct JournalCodec<State: Sendable, Action: Sendable>: Sendable {
  /// An action as one entry's text.
  public var encodeAction: @Sendable (Action) -> String
  /// An action from its text.
  public var decodeAction: @Sendable (String) throws -> Action
  /// The state as a snapshot's text.
  public var encodeState: @Sendable (State) throws -> String
  /// The state from a snapshot's text.
  public var decodeState: @Sendable (String) throws -> State

  /// A codec of four functions.
  public init(
    encodeAction: @escaping @Sendable (Action) -> String,
    decodeAction: @escaping @Sendable (String) throws -> Action,
    encodeState: @escaping @Sendable (State) throws -> String,
    decodeState: @escaping @Sendable (String) throws -> State
  ) {
    self.encodeAction = encodeAction
    self.decodeAction = decodeAction
    self.encodeState = encodeState
    self.decodeState = decodeState
  }
}

extension JournalCodec where State: Codable, Action: Codable {
  /// JSON for both, with Foundation's `JSONEncoder` and `JSONDecoder` (FoundationEssentials on
  /// Linux): keys sorted, so that the same value is always the same text.
  ///
  /// An action that does not encode (a `Double.nan` in it, say) is written as `null` and fails to
  /// decode on recovery, naming its entry: give such a feature a codec of its own.
  public static var json: Self {
    Self(
      encodeAction: { action in
        guard let data = try? JournalJSON.encoder.encode(action) else { return "null" }
        return String(decoding: data, as: UTF8.self)
      },
      decodeAction: { text in try JSONDecoder().decode(Action.self, from: Data(text.utf8)) },
      encodeState: { state in String(decoding: try JournalJSON.encoder.encode(state), as: UTF8.self) },
      decodeState: { text in try JSONDecoder().decode(State.self, from: Data(text.utf8)) })
  }
}

/// The encoder the JSON codecs share: one line, keys sorted.
enum JournalJSON {
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()
}
