extension StringProtocol {
  /// This text as an error message quotes it: on one line, and short.
  ///
  /// Line breaks and other control or format characters are escaped (`\r`, `\u{1B}`), so that text
  /// a user typed or passed cannot break a one-line message or drive the terminal. What is shown,
  /// escapes included, is at most `limit` characters; longer text is cut with an ellipsis.
  ///
  /// ```swift
  /// "4\r2".shownInMessage()  // 4\r2
  /// ```
  public func shownInMessage(limit: Int = 20) -> String {
    var shown = ""
    for character in self {
      var form = ""
      for scalar in character.unicodeScalars {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
          form += scalar.escaped(asASCII: true)
        default:
          form.unicodeScalars.append(scalar)
        }
      }
      guard shown.count + form.count <= limit else { return shown + "…" }
      shown += form
    }
    return shown
  }
}
