extension StringProtocol {
  /// This text as a terminal may safely show it: control and format characters escaped (`\r`,
  /// `\u{1B}`), everything else as it is.
  ///
  /// Everything a sample prints that came from input or from a file goes through it, so that a
  /// title like `"\u{1B}]0;owned\u{07}"` shows as text instead of renaming the terminal's window,
  /// and a title with a line break cannot forge a line of the list.
  ///
  /// ```swift
  /// "milk\u{1B}[2J".shownSafely()  // milk\u{1B}[2J
  /// ```
  public func shownSafely() -> String {
    var shown = ""
    for character in self { shown += Self.escaped(character) }
    return shown
  }

  /// This text as an error message quotes it: on one line, and short.
  ///
  /// Line breaks and other control or format characters are escaped as by ``shownSafely()``, so
  /// that text a user typed or passed cannot break a one-line message or drive the terminal. What
  /// is shown, escapes included, is at most `limit` characters; longer text is cut with an
  /// ellipsis.
  ///
  /// ```swift
  /// "4\r2".shownInMessage()  // 4\r2
  /// ```
  public func shownInMessage(limit: Int = 20) -> String {
    var shown = ""
    for character in self {
      let form = Self.escaped(character)
      guard shown.count + form.count <= limit else { return shown + "…" }
      shown += form
    }
    return shown
  }

  /// `character`, with each control or format scalar in it escaped.
  private static func escaped(_ character: Character) -> String {
    var form = ""
    for scalar in character.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control, .format, .lineSeparator, .paragraphSeparator:
        form += scalar.escaped(asASCII: true)
      default:
        form.unicodeScalars.append(scalar)
      }
    }
    return form
  }
}
