/// A 128-bit universally unique identifier, without Foundation.
///
/// ``UUIDGenerator`` makes them. They print and parse in the usual form,
/// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, encode as that string, and convert to Foundation's
/// `UUID` through their bytes: `UUID(uuid: id.uuid)`.
public struct UniqueID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// The first eight bytes, most significant first.
  public let high: UInt64
  /// The last eight bytes, most significant first.
  public let low: UInt64

  /// Creates an identifier from its two halves.
  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// A random version 4 identifier.
  public init<Generator: RandomNumberGenerator>(randomUsing generator: inout Generator) {
    let high = generator.next() & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
    let low = generator.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
    self.init(high: high, low: low)
  }

  /// Parses the usual form, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, in either case; `nil` if the
  /// text is not an identifier.
  public init?(uuidString: String) {
    let groups = uuidString.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
    let hex = groups.joined()
    guard hex.allSatisfy(\.isHexDigit),
      let high = UInt64(hex.prefix(16), radix: 16),
      let low = UInt64(hex.suffix(16), radix: 16)
    else { return nil }
    self.init(high: high, low: low)
  }

  /// The usual form, in capitals, as Foundation writes it.
  public var uuidString: String {
    let hex = Self.hex(high, digits: 16) + Self.hex(low, digits: 16)
    let cuts = [8, 12, 16, 20].map { hex.index(hex.startIndex, offsetBy: $0) }
    return [
      hex[..<cuts[0]], hex[cuts[0]..<cuts[1]], hex[cuts[1]..<cuts[2]], hex[cuts[2]..<cuts[3]],
      hex[cuts[3]...],
    ].joined(separator: "-")
  }

  /// The sixteen bytes, in the layout of `uuid_t`, for `Foundation.UUID(uuid:)`.
  public var uuid:
    (
      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
      UInt8, UInt8, UInt8
    )
  {
    func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
    return (
      byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5),
      byte(high, 6), byte(high, 7), byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3),
      byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)
    )
  }

  /// The usual form.
  public var description: String { uuidString }

  /// Orders identifiers by their bytes.
  public static func < (lhs: UniqueID, rhs: UniqueID) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }

  /// Decodes the usual form.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let id = UniqueID(uuidString: text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(text)' is not a UUID")
    }
    self = id
  }

  /// Encodes the usual form.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(uuidString)
  }

  private static func hex(_ value: UInt64, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: digits - text.count) + text
  }
}
