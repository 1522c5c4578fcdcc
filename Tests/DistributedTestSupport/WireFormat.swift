import Foundation

/// The bytes of a call or a reply: a version byte, then fields, each a length and its bytes. A
/// frame of another version, cut short or longer than its fields is refused with a
/// ``RemoteCallFailure``.
///
/// Version 2 writes a call's generic substitutions and arguments first and its actor and target
/// last, so that the invocation encoder's own buffer becomes the frame (version 1 wrote the actor
/// first). Nodes of one build talk to each other: a frame of another version is refused, not read.
struct FrameWriter {
  /// The version of the frames this system writes and reads.
  static let version: UInt8 = 2

  private(set) var bytes: [UInt8]

  init(capacity: Int = 128) {
    bytes = [FrameWriter.version]
    bytes.reserveCapacity(capacity)
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Nothing, not even the version byte, and no storage: what is left of a writer handed on.
  static var spent: FrameWriter { FrameWriter(bytes: []) }

  var count: Int { bytes.count }

  /// Appends a field whose bytes `write` appends, its length written before them once known.
  mutating func appendField(_ write: (inout [UInt8]) throws -> Void) rethrows {
    let start = bytes.count
    append(UInt64(0))
    try write(&bytes)
    set(UInt64(bytes.count - start - 8), at: start)
  }

  mutating func append(_ value: UInt64) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
  }

  /// Writes `value` over the 8 bytes at `offset`, where an integer was appended.
  mutating func set(_ value: UInt64, at offset: Int) {
    withUnsafeBytes(of: value.bigEndian) { value in
      bytes.withUnsafeMutableBytes {
        UnsafeMutableRawBufferPointer(rebasing: $0[offset..<offset + 8]).copyMemory(from: value)
      }
    }
  }

  mutating func append(_ field: some Collection<UInt8>) {
    append(UInt64(field.count))
    bytes.append(contentsOf: field)
  }

  mutating func append(_ string: String) {
    var string = string
    string.withUTF8 { append($0) }
  }
}

/// Reads a frame's fields back, in the order written, as places in the frame.
struct FrameReader {
  let bytes: [UInt8]
  private(set) var offset = 1

  init(_ bytes: [UInt8]) throws {
    guard let version = bytes.first else { throw RemoteCallFailure(message: "an empty frame") }
    guard version == FrameWriter.version else {
      throw RemoteCallFailure(
        message: "a frame of version \(version); this node reads \(FrameWriter.version)")
    }
    self.bytes = bytes
  }

  /// Reads on from `offset`, a place an earlier reader of the same frame reached.
  init(_ bytes: [UInt8], at offset: Int) {
    self.bytes = bytes
    self.offset = offset
  }

  /// Whether every byte was read.
  var atEnd: Bool { offset == bytes.count }

  mutating func integer() throws -> UInt64 {
    guard bytes.count - offset >= 8 else { throw RemoteCallFailure(message: "a frame cut short") }
    defer { offset += 8 }
    var value: UInt64 = 0
    for byte in bytes[offset..<offset + 8] { value = value << 8 | UInt64(byte) }
    return value
  }

  /// Where the next field's bytes are.
  mutating func field() throws -> Range<Int> {
    let count = try integer()
    guard count <= UInt64(bytes.count - offset) else { throw RemoteCallFailure(message: "a frame cut short") }
    defer { offset += Int(count) }
    return offset..<offset + Int(count)
  }

  /// Passes over `count` fields. A count larger than the frame holds ends cut short, after at most
  /// one pass per 8 bytes.
  mutating func skipFields(_ count: UInt64) throws {
    for _ in 0..<count { _ = try field() }
  }

  /// A text field; bytes that are not UTF-8 are read as U+FFFD, and then match no actor, target or
  /// type.
  mutating func string() throws -> String {
    String(decoding: bytes[try field()], as: UTF8.self)
  }
}

/// A value as JSON: strings, integers and booleans written and read directly, as JSON's own text
/// (what most of a call's arguments are); anything else through `JSONEncoder` and `JSONDecoder`.
enum JSONValue {
  static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
    var bytes: [UInt8] = []
    try appendJSON(value, to: &bytes)
    return bytes
  }

  /// Appends `value`'s JSON to `writer` as a field, with no array of its own for the common
  /// types.
  static func append<Value: Encodable>(_ value: Value, to writer: inout FrameWriter) throws {
    try writer.appendField { try appendJSON(value, to: &$0) }
  }

  /// Appends `value`'s JSON to `bytes`: a string, an integer or a boolean written here, anything
  /// else through `JSONEncoder`.
  private static func appendJSON<Value: Encodable>(_ value: Value, to bytes: inout [UInt8]) throws {
    // Compared as types first: a cast of a value of another type costs a conformance lookup.
    if Value.self == String.self {
      quote(value as! String, into: &bytes)
    } else if Value.self == Int.self {
      appendDecimal(value as! Int, to: &bytes)
    } else if Value.self == Int64.self {
      appendDecimal(value as! Int64, to: &bytes)
    } else if Value.self == UInt64.self {
      appendDecimal(value as! UInt64, to: &bytes)
    } else if Value.self == Bool.self {
      bytes.append(contentsOf: (value as! Bool ? "true" : "false").utf8)
    } else {
      bytes.append(contentsOf: try JSONEncoder().encode(value))
    }
  }

  /// Reads a `Value` from JSON; a string, an integer or a boolean directly when it is written as
  /// ``append(_:to:)`` writes it, anything else through a decoder that resolves actors on `system`.
  /// (The system is passed, not a closure that makes the decoder: forming one retained the
  /// system for every argument, strings and integers too.)
  static func decode<Value: Decodable>(
    _ type: Value.Type, from json: ArraySlice<UInt8>, on system: JSONActorSystem
  ) throws -> Value {
    if Value.self == String.self, let string = unquoted(json) { return string as! Value }
    if Value.self == Int.self, let integer = decimal(json, as: Int.self) { return integer as! Value }
    if Value.self == Int64.self, let integer = decimal(json, as: Int64.self) { return integer as! Value }
    if Value.self == UInt64.self, let integer = decimal(json, as: UInt64.self) { return integer as! Value }
    if Value.self == Bool.self, json.elementsEqual("true".utf8) || json.elementsEqual("false".utf8) {
      return (json.count == 4) as! Value
    }
    return try system.decoder().decode(Value.self, from: Data(json))
  }

  /// Appends `value` in decimal, as JSON writes an integer.
  private static func appendDecimal<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    let start = bytes.count
    var rest = value.magnitude
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
      rest /= 10
    } while rest != 0
    bytes[start...].reverse()
  }

  /// An integer in decimal, as ``appendDecimal(_:to:)`` writes it; `nil` for any other text, or
  /// one out of `Integer`'s range, which `JSONDecoder` then reads or refuses.
  private static func decimal<Integer: FixedWidthInteger>(_ json: ArraySlice<UInt8>, as: Integer.Type)
    -> Integer?
  {
    let negative = json.first == UInt8(ascii: "-")
    let digits = negative ? json.dropFirst() : json
    // JSON writes no leading zero: "007" is not an integer here, and JSONDecoder refuses it.
    guard !digits.isEmpty, digits.count == 1 || digits.first != UInt8(ascii: "0") else { return nil }
    var magnitude: Integer.Magnitude = 0
    for byte in digits {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (tens, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, overflowedAgain) = tens.addingReportingOverflow(Integer.Magnitude(byte - UInt8(ascii: "0")))
      guard !overflowed, !overflowedAgain else { return nil }
      magnitude = sum
    }
    guard negative else { return Integer(exactly: magnitude) }
    if Integer.isSigned, magnitude == Integer.min.magnitude { return .min }
    return Integer(exactly: magnitude).map { 0 - $0 }
  }

  /// Appends `string` as JSON to `bytes`: quotes, and `"`, `\` and control characters escaped.
  private static func quote(_ string: String, into bytes: inout [UInt8]) {
    bytes.reserveCapacity(bytes.count + string.utf8.count + 2)
    bytes.append(UInt8(ascii: "\""))
    defer { bytes.append(UInt8(ascii: "\"")) }
    // Most strings need no escape: their bytes go in at once.
    guard string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
    else {
      bytes.append(contentsOf: string.utf8)
      return
    }
    for byte in string.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        bytes += [UInt8(ascii: "\\"), byte]
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
      default:
        bytes.append(byte)
      }
    }
  }

  /// The text of a JSON string without escapes; `nil` for any other, which `JSONDecoder` reads.
  private static func unquoted(_ json: ArraySlice<UInt8>) -> String? {
    guard json.count >= 2, json.first == UInt8(ascii: "\""), json.last == UInt8(ascii: "\"") else {
      return nil
    }
    let inner = json.dropFirst().dropLast()
    guard !inner.contains(UInt8(ascii: "\\")), !inner.contains(UInt8(ascii: "\"")) else { return nil }
    return String(decoding: inner, as: UTF8.self)
  }
}
