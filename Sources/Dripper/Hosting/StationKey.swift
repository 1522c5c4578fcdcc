#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A key a ``StationHost`` runs a Station for: an account, an order, a session.
///
/// Its text names the key's folder in a host's storage and its reminders, so it must be the same
/// in every run and every process, and give the key back. `String`, the integer types and `UUID`
/// are keys already; a key of your own says how it is written:
///
/// ```swift
/// struct OrderID: StationKey {
///   let rawValue: Int
///   var stationKeyText: String { "order-\(rawValue)" }
///   init?(stationKeyText text: String) {
///     guard text.hasPrefix("order-"), let value = Int(text.dropFirst(6)) else { return nil }
///     rawValue = value
///   }
/// }
/// ```
///
/// Any text is safe: a key's folder name is made from its text with every byte but lowercase
/// letters, digits and `-` escaped (no `/`, no `..`, and two keys that differ only by case get
/// folders that differ with case ignored, as on macOS's default file system), and a long text is
/// named by its hash, with the text kept in the folder to be checked. Texts that Swift calls
/// equal (`"café"` written with `é`, or with `e` and a combining accent) are one key: its text is
/// taken in Unicode's composed form (NFC).
public protocol StationKey: Hashable, Sendable {
  /// The key as text, the same in every process.
  var stationKeyText: String { get }
  /// The key a text names, or `nil` if it names none.
  init?(stationKeyText: String)
}

extension String: StationKey {
  /// The string itself.
  public var stationKeyText: String { self }
  /// The string itself.
  public init?(stationKeyText: String) { self = stationKeyText }
}

extension Int: StationKey {
  /// The number in decimal.
  public var stationKeyText: String { String(self) }
  /// The number a decimal text names.
  public init?(stationKeyText: String) { self.init(stationKeyText) }
}

extension Int64: StationKey {
  /// The number in decimal.
  public var stationKeyText: String { String(self) }
  /// The number a decimal text names.
  public init?(stationKeyText: String) { self.init(stationKeyText) }
}

extension UInt64: StationKey {
  /// The number in decimal.
  public var stationKeyText: String { String(self) }
  /// The number a decimal text names.
  public init?(stationKeyText: String) { self.init(stationKeyText) }
}

extension UUID: StationKey {
  /// The UUID's string, in capitals.
  public var stationKeyText: String { uuidString }
  /// The UUID a string names.
  public init?(stationKeyText: String) { self.init(uuidString: stationKeyText) }
}
