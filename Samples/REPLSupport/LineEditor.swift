/// The line a person is typing at an interactive prompt, key by key: what the terminal's own line
/// editing would do, kept by the program so that it can redraw the line after output that arrives
/// meanwhile (see ``Console/stateLine(_:)``).
///
/// ```swift
/// var editor = LineEditor()
/// for byte in Array("ad\u{7F}dd\r".utf8) { outcome = editor.feed(byte) }  // .line("add")
/// ```
///
/// It understands printable text (UTF-8 included), Backspace, Ctrl-U (erase the line), Ctrl-D
/// (the end of input on an empty line), Return, and skips the escape sequences of arrow and
/// function keys. Other control characters are ignored.
public struct LineEditor: Equatable, Sendable {
  /// What a key did.
  public enum Outcome: Equatable, Sendable {
    /// The line changed: show it again.
    case changed
    /// Nothing to show: an ignored key, or a character not yet complete (the first bytes of a
    /// multi-byte UTF-8 sequence).
    case unchanged
    /// Return: the line is entered, and the editor is empty again.
    case line(String)
    /// Ctrl-D on an empty line.
    case endOfInput
  }

  /// Where an escape sequence stands.
  private enum Escape: Equatable, Sendable {
    case none
    /// After ESC.
    case started
    /// After ESC [ or ESC O: parameters until a final byte.
    case sequence
  }

  /// The longest line kept, in bytes: keys beyond it are ignored.
  public static let capacity = 4096

  private var bytes: [UInt8] = []
  private var escape = Escape.none

  /// An empty line.
  public init() {}

  /// The text typed so far.
  public var text: String { String(decoding: bytes, as: UTF8.self) }

  /// Whether the last character typed is complete: a multi-byte character shows once all its
  /// bytes have come.
  private var endsOnACharacter: Bool {
    var continuation = 0
    for byte in bytes.reversed() {
      if byte & 0b1100_0000 == 0b1000_0000 {
        continuation += 1
        continue
      }
      let length =
        byte < 0x80 ? 1 : byte & 0b1110_0000 == 0b1100_0000 ? 2 : byte & 0b1111_0000 == 0b1110_0000 ? 3 : 4
      return continuation + 1 >= length
    }
    return true
  }

  /// Applies one byte read from the terminal.
  public mutating func feed(_ byte: UInt8) -> Outcome {
    switch escape {
    case .started:
      escape = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? .sequence : .none
      return .unchanged
    case .sequence:
      // Parameters and intermediates are 0x20–0x3F; a final byte (0x40–0x7E) ends the sequence.
      if (0x40...0x7E).contains(byte) { escape = .none }
      return .unchanged
    case .none:
      break
    }
    switch byte {
    case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
      defer { bytes.removeAll(keepingCapacity: true) }
      return .line(text)
    case 0x7F, 0x08:  // Backspace (DEL, or Ctrl-H)
      guard !bytes.isEmpty else { return .unchanged }
      // Remove the last character: its continuation bytes, then its first byte.
      while let last = bytes.popLast(), last & 0b1100_0000 == 0b1000_0000 {}
      return .changed
    case 0x15:  // Ctrl-U
      guard !bytes.isEmpty else { return .unchanged }
      bytes.removeAll(keepingCapacity: true)
      return .changed
    case 0x04:  // Ctrl-D
      return bytes.isEmpty ? .endOfInput : .unchanged
    case 0x1B:
      escape = .started
      return .unchanged
    case ..<0x20:
      return .unchanged
    default:
      guard bytes.count < Self.capacity else { return .unchanged }
      bytes.append(byte)
      return endsOnACharacter ? .changed : .unchanged
    }
  }

  /// Drops the line being typed (Ctrl-C at the prompt).
  public mutating func clear() {
    bytes.removeAll(keepingCapacity: true)
    escape = .none
  }
}
