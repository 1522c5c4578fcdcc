/// The rules every error message a user sees keeps: one line, not empty, and short however long
/// the input it quotes. The samples' fuzz targets and tests check their messages against them.
public enum MessageRules {
  /// The longest message, in characters.
  public static let maximumLength = 160

  /// The rules `message`, shown for `input`, breaks; empty when it keeps them all.
  public static func violations(of message: String, for input: String) -> [String] {
    var broken: [String] = []
    if message.isEmpty { broken.append("empty error for \(input)") }
    if message.contains(where: \.isNewline) {
      broken.append("multi-line error \(message.debugDescription) for \(input)")
    }
    if message.count > maximumLength {
      broken.append("error of \(message.count) characters for \(input)")
    }
    return broken
  }
}
