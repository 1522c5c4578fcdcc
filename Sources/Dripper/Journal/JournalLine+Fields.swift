/// The fields of a journal line: bytes it names, numbers in decimal and in hex, escaped text.
extension JournalLine {
  static let space = UInt8(ascii: " ")
  static let dash = UInt8(ascii: "-")
  static let newline = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")
  static let backslash = UInt8(ascii: "\\")

  static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
    var digits = 1
    var rest = value / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
    var remaining = value
    var index = start + digits - 1
    while remaining > 0 {
      bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
      remaining /= 10
      index -= 1
    }
  }

  /// 16 lowercase hexadecimal digits.
  static func appendHex(_ value: UInt64, to bytes: inout [UInt8]) {
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 16))
    var remaining = value
    for index in stride(from: start + 15, through: start, by: -1) {
      let digit = UInt8(remaining & 0xf)
      bytes[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
      remaining >>= 4
    }
  }

  static func decimal(_ field: ArraySlice<UInt8>) -> UInt64? {
    guard !field.isEmpty, field.count <= 20 else { return nil }
    var value: UInt64 = 0
    for byte in field {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (times, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowed) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflow, !overflowed else { return nil }
      value = sum
    }
    return value
  }

  static func hex(_ field: ArraySlice<UInt8>) -> UInt64? {
    guard field.count == 16 else { return nil }
    var value: UInt64 = 0
    for byte in field {
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      default: return nil
      }
      value = value << 4 | UInt64(digit)
    }
    return value
  }

  /// `text` with `\`, newlines and carriage returns escaped, as an entry's action is: one line.
  static func escape(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == backslash || $0 == newline || $0 == carriageReturn }) else {
      return text
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 8)
    for byte in text.utf8 {
      switch byte {
      case backslash: bytes += [backslash, backslash]
      case newline: bytes += [backslash, UInt8(ascii: "n")]
      case carriageReturn: bytes += [backslash, UInt8(ascii: "r")]
      default: bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The action an escaped field holds; `nil` if an escape is unknown or the text is not UTF-8.
  static func unescape(_ field: ArraySlice<UInt8>) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(field.count)
    var escaping = false
    for byte in field {
      if escaping {
        switch byte {
        case backslash: bytes.append(backslash)
        case UInt8(ascii: "n"): bytes.append(newline)
        case UInt8(ascii: "r"): bytes.append(carriageReturn)
        default: return nil
        }
        escaping = false
      } else if byte == backslash {
        escaping = true
      } else {
        bytes.append(byte)
      }
    }
    guard !escaping else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }
}
