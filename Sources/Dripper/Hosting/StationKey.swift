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
/// Any text is safe: a key's folder name is made from its text with every byte but letters,
/// digits, `-` and `_` escaped (no `/`, no `..`), and a long text is named by its hash, with the
/// text kept in the folder to be checked.
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

/// Where a key lives in a host's folder: `keys/AB/CD/NAME`, the two levels from a hash of the
/// key's text, so that a million keys make folders of a few dozen entries each.
enum KeyFolder {
  /// The longest name made of the text itself; a longer one is named by the text's hash.
  static let longestName = 120

  /// The folder of the key whose text is `text`, under `root`; and whether its name is a hash,
  /// whose folder keeps the text in a file `key` to be checked.
  static func path(of text: String, in root: String) -> (path: String, hashed: Bool) {
    var hash = FNV1a()
    hash.add(text.utf8)
    let bytes = withUnsafeBytes(of: hash.value.bigEndian) { Array($0) }
    let levels = "\(hexByte(bytes[0]))/\(hexByte(bytes[1]))"
    let escaped = name(of: text)
    if escaped.utf8.count <= longestName {
      return ("\(root)/keys/\(levels)/\(escaped)", false)
    }
    var digits: [UInt8] = []
    JournalLine.appendHex(hash.value, to: &digits)
    return ("\(root)/keys/\(levels)/h\(String(decoding: digits, as: UTF8.self))", true)
  }

  /// `k` and the text with every byte but ASCII letters, digits, `-` and `_` written `%XX`: a name
  /// that is never empty, never `.` or `..`, and never has a `/`.
  static func name(of text: String) -> String {
    var name: [UInt8] = [UInt8(ascii: "k")]
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
        name.append(byte)
      default:
        name.append(UInt8(ascii: "%"))
        name += Array(hexByte(byte).utf8)
      }
      if name.count > longestName { break }
    }
    return String(decoding: name, as: UTF8.self)
  }

  private static func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]], as: UTF8.self)
  }

  /// Makes the folders down to `path`, each only if missing, refusing what is not a folder.
  static func make(_ path: String, under root: String) -> JournalError? {
    var current = root
    for component in path.dropFirst(root.count + 1).split(separator: "/") {
      current += "/" + component
      if let failure = AtomicFile.makeDirectory(current) { return JournalError(current, failure) }
    }
    return nil
  }

  /// Claims a folder named by a hash for the key whose text is `text`: the folder keeps the text
  /// in a file `key`, written the first time, and a folder holding another text (two long texts
  /// of one hash) is refused.
  static func claim(_ path: String, for text: String) -> JournalError? {
    let file = path + "/key"
    switch AtomicFile.contents(at: file, limit: 1 << 20) {
    case .success(let bytes?):
      guard bytes.elementsEqual(text.utf8) else {
        return JournalError("\(path) holds another key whose text has the same hash: this key is refused")
      }
      return nil
    case .success(nil):
      return AtomicFile.replace(at: file, with: Array(text.utf8)).map { JournalError(file, $0) }
    case .failure(let failure):
      return JournalError(file, failure)
    }
  }
}
