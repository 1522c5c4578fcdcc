import REPLSupport

/// A line typed at the REPL, parsed.
enum Command: Equatable, Sendable {
  case increase
  case decrease
  case set(Int)
  case reset
  case random
  case fact
  case cancel
  case state
  case wait
  case help
  case quit

  /// The longest line the REPL reads.
  static let maximumLength = 200

  /// Every command, for `help`: its spelling and what it does.
  static let summary: [(spelling: String, meaning: String)] = [
    ("+, inc", "add one"),
    ("-, dec", "subtract one"),
    ("set N", "set the count to N (a whole number, at most \(Counter.limit) either way)"),
    ("reset", "start again from zero, cancelling what runs"),
    ("random", "after a moment, set the count to a random number from 1 to 100"),
    ("fact", "compute a fact about the count's factorial (slow for big counts)"),
    ("cancel", "cancel a pending random or fact"),
    ("state", "show the state"),
    ("wait", "wait for pending work to finish"),
    ("help", "show this list"),
    ("quit", "cancel what runs and leave (so does end of input)"),
  ]

  /// Parses a line, or explains in one line why it is not a command.
  static func parse(_ line: String) -> Result<Command, CommandError> {
    guard line.count <= maximumLength else {
      return .failure(
        CommandError("line too long (\(line.count) characters; at most \(maximumLength))"))
    }
    let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let name = words.first?.lowercased() else {
      return .failure(CommandError("empty command; type 'help' for the list"))
    }
    let arguments = words.dropFirst()
    let command: Command
    switch name {
    case "+", "inc": command = .increase
    case "-", "dec": command = .decrease
    case "reset": command = .reset
    case "random": command = .random
    case "fact": command = .fact
    case "cancel": command = .cancel
    case "state": command = .state
    case "wait": command = .wait
    case "help", "?": command = .help
    case "quit", "exit": command = .quit
    case "set":
      guard arguments.count == 1, let text = arguments.first else {
        return .failure(CommandError("'set' takes one number, as in 'set 42'"))
      }
      // `magnitude`, not `abs`: the absolute value of `Int.min` does not fit in an `Int`.
      guard let value = Int(text), value.magnitude <= Counter.limit.magnitude else {
        return .failure(
          CommandError(
            "'set' needs a whole number from -\(Counter.limit) to \(Counter.limit), not '\(text.shownInMessage())'"
          ))
      }
      return .success(.set(value))
    default:
      return .failure(CommandError("unknown command '\(name.shownInMessage())'; type 'help' for the list"))
    }
    guard arguments.isEmpty else {
      return .failure(CommandError("'\(name)' takes no arguments"))
    }
    return .success(command)
  }

  /// The action the command pours, if it pours one.
  var action: Counter.Action? {
    switch self {
    case .increase: .increase
    case .decrease: .decrease
    case .set(let value): .set(value)
    case .reset: .reset
    case .random: .randomTapped
    case .fact: .factTapped
    case .cancel: .cancelTapped
    case .state, .wait, .help, .quit: nil
    }
  }
}

/// Why a line is not a command.
struct CommandError: Error, Equatable, CustomStringConvertible {
  let message: String

  init(_ message: String) { self.message = message }

  var description: String { message }
}
