/// How the REPL shows things.
enum Rendering {
  /// One line for a state: the count, then what is pending, then the last fact.
  static func line(for state: Counter.State) -> String {
    var parts = ["count: \(state.count)"]
    if state.isRandomPending { parts.append("random number on its way") }
    if let number = state.factInProgress { parts.append("computing a fact about \(number)!") }
    if let fact = state.fact { parts.append(fact) }
    return parts.joined(separator: " | ")
  }

  /// The list of commands.
  static var help: String {
    let width = Command.summary.map(\.spelling.count).max() ?? 0
    let lines = Command.summary.map { command in
      "  " + command.spelling + String(repeating: " ", count: width - command.spelling.count + 2)
        + command.meaning
    }
    return (["Commands:"] + lines).joined(separator: "\n")
  }
}
