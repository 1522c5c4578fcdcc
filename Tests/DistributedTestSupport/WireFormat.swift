import Foundation

/// The bytes of a call or a reply: a version byte, then fields, each a length and its bytes. A
/// frame of another version, or cut short, is refused with a ``RemoteCallFailure``.
struct FrameWriter {
  /// The version of the frames this system writes and reads.
  static let version: UInt8 = 1

  private(set) var bytes: [UInt8] = [FrameWriter.version]

  init(capacity: Int = 128) {
    bytes.reserveCapacity(capacity)
  }

  /// Fields alone, without the version byte: a part of a frame written ahead of it.
  init(fieldsOnly capacity: Int) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// Appends the fields another writer wrote (``init(fieldsOnly:)``), as they are.
  mutating func append(fields: FrameWriter) {
    bytes.append(contentsOf: fields.bytes)
  }

  /// Appends a field whose bytes `write` appends, its length written before them once known.
  mutating func appendField(_ write: (inout [UInt8]) throws -> Void) rethrows {
    let start = bytes.count
    append(UInt64(0))
    try write(&bytes)
    let length = UInt64(bytes.count - start - 8).bigEndian
    withUnsafeBytes(of: length) { bytes.replaceSubrange(start..<start + 8, with: $0) }
  }

  mutating func append(_ value: UInt64) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
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

/// Reads a frame's fields back, in the order written.
struct FrameReader {
  private let bytes: [UInt8]
  private var offset = 1

  init(_ bytes: [UInt8]) throws {
    guard let version = bytes.first else { throw RemoteCallFailure(message: "an empty frame") }
    guard version == FrameWriter.version else {
      throw RemoteCallFailure(
        message: "a frame of version \(version); this node reads \(FrameWriter.version)")
    }
    self.bytes = bytes
  }

  mutating func integer() throws -> UInt64 {
    guard bytes.count - offset >= 8 else { throw RemoteCallFailure(message: "a frame cut short") }
    defer { offset += 8 }
    var value: UInt64 = 0
    for byte in bytes[offset..<offset + 8] { value = value << 8 | UInt64(byte) }
    return value
  }

  mutating func field() throws -> ArraySlice<UInt8> {
    let count = try integer()
    guard count <= UInt64(bytes.count - offset) else { throw RemoteCallFailure(message: "a frame cut short") }
    defer { offset += Int(count) }
    return bytes[offset..<offset + Int(count)]
  }

  /// A text field; bytes that are not UTF-8 are read as U+FFFD, and then match no actor, target or
  /// type.
  mutating func string() throws -> String {
    String(decoding: try field(), as: UTF8.self)
  }
}

/// A value as JSON: strings, integers and booleans written and read directly, as JSON's own text
/// (what most of a call's arguments are); anything else through `JSONEncoder` and `JSONDecoder`.
enum JSONValue {
  static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
    // Compared as types first: a cast of a value of another type costs a conformance lookup.
    if Value.self == String.self { return quoted(value as! String) }
    if Value.self == Int.self { return Array(String(value as! Int).utf8) }
    if Value.self == Int64.self { return Array(String(value as! Int64).utf8) }
    if Value.self == UInt64.self { return Array(String(value as! UInt64).utf8) }
    if Value.self == Bool.self { return Array((value as! Bool ? "true" : "false").utf8) }
    return Array(try JSONEncoder().encode(value))
  }

  /// Appends `value`'s JSON to `writer` as a field, with no array of its own for the common
  /// types.
  static func append<Value: Encodable>(_ value: Value, to writer: inout FrameWriter) throws {
    if Value.self == String.self {
      writer.appendField { quote(value as! String, into: &$0) }
    } else if Value.self == Int.self {
      writer.appendField { $0.append(contentsOf: String(value as! Int).utf8) }
    } else if Value.self == Int64.self || Value.self == UInt64.self || Value.self == Bool.self {
      writer.append(try encode(value))
    } else {
      writer.append(try JSONEncoder().encode(value))
    }
  }

  static func decode<Value: Decodable>(
    _ type: Value.Type, from json: ArraySlice<UInt8>, decoder: () -> JSONDecoder
  ) throws -> Value {
    if Value.self == String.self, let string = unquoted(json) { return string as! Value }
    if Value.self == Int.self, let integer = Int(text(json)) { return integer as! Value }
    if Value.self == Int64.self, let integer = Int64(text(json)) { return integer as! Value }
    if Value.self == UInt64.self, let integer = UInt64(text(json)) { return integer as! Value }
    if Value.self == Bool.self, let boolean = Bool(String(text(json))) { return boolean as! Value }
    return try decoder().decode(Value.self, from: Data(json))
  }

  private static func text(_ json: ArraySlice<UInt8>) -> Substring {
    Substring(decoding: json, as: UTF8.self)
  }

  /// A JSON string: quotes, and `"`, `\` and control characters escaped.
  private static func quoted(_ string: String) -> [UInt8] {
    var bytes: [UInt8] = []
    quote(string, into: &bytes)
    return bytes
  }

  /// Appends `string` as JSON to `bytes`.
  private static func quote(_ string: String, into bytes: inout [UInt8]) {
    bytes.reserveCapacity(bytes.count + string.utf8.count + 2)
    bytes.append(UInt8(ascii: "\""))
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
    bytes.append(UInt8(ascii: "\""))
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
