import Foundation
import REPLSupport

/// A line typed at the Todos REPL, parsed.
enum Command: Equatable, Sendable {
  case add(String)
  case toggle(Int)
  case rename(Int, String)
  case remove(Int)
  case edit(Int)
  case text(String)
  case commit
  case discard
  case clearDone
  case filter(Todos.Filter)
  /// `filter` alone: says which filter is on.
  case showFilter
  case search(String)
  case undo
  case redo
  case list
  case save(String?)
  /// `save --force`: replaces a file this session did not load or create.
  case forceSave(String?)
  case load(String?)
  case wait
  case help
  case quit

  /// The longest line the REPL reads.
  static let maximumLength = 500

  /// Every command, for `help`.
  static let summary: [(spelling: String, meaning: String)] = [
    ("add TITLE", "add a todo"),
    ("toggle N", "mark todo N done, or not done"),
    ("rename N TITLE", "rename todo N"),
    ("remove N", "remove todo N"),
    ("edit N", "open todo N's title in the editor"),
    ("text TITLE", "change the editor's draft"),
    ("commit, discard", "close the editor, keeping or dropping the draft"),
    ("clear-done", "remove the todos that are done"),
    ("filter [all|active|done]", "show some todos only (no argument: say which)"),
    ("search [TEXT]", "show the todos whose title contains TEXT (no TEXT: all)"),
    ("undo, redo", "undo or redo the last change to the list"),
    ("list", "show the list"),
    ("save [--force] [PATH], load [PATH]", "save or load the list as JSON (default: ~/.todos.json)"),
    ("wait", "wait for pending work, such as a search"),
    ("help", "show this list"),
    ("quit", "leave (so does end of input)"),
  ]

  /// Parses a line, or explains in one line why it is not a command.
  static func parse(_ line: String) -> Result<Command, CommandError> {
    guard line.count <= maximumLength else {
      return .failure(CommandError("line too long (\(line.count) characters; at most \(maximumLength))"))
    }
    let trimmed = line.drop { $0.isWhitespace }
    guard !trimmed.isEmpty else { return .failure(CommandError("empty command; type 'help' for the list")) }
    let name = String(trimmed.prefix { !$0.isWhitespace }).lowercased()
    let rest = String(trimmed.dropFirst(name.count).drop { $0.isWhitespace })
      .trimmingTrailingWhitespace()

    func number(_ text: Substring) -> Result<Int, CommandError> {
      guard let value = Int(text), value > 0 else {
        return .failure(
          CommandError("'\(name)' needs the number of a todo in the list, not '\(text.shownInMessage())'"))
      }
      return .success(value)
    }
    func title(_ text: String) -> Result<String, CommandError> {
      text.isEmpty ? .failure(CommandError("'\(name)' needs a title")) : .success(text)
    }
    /// A file name as a shell would take it: in quotes if it has spaces, `~` for the home folder.
    func path(_ text: String) -> Result<String?, CommandError> {
      var path = text
      if let quote = path.first, quote == "\"" || quote == "'" {
        guard path.count >= 2, path.last == quote else {
          return .failure(CommandError("'\(name)': the file name's quote (\(quote)) is not closed"))
        }
        path = String(path.dropFirst().dropLast())
      }
      if path.isEmpty { return .success(nil) }
      if path == "~" || path.hasPrefix("~/") {
        guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty else {
          return .failure(CommandError("'\(name)': '~' stands for the home folder, but HOME is not set"))
        }
        path = home + path.dropFirst()
      }
      return .success(path)
    }
    func noArguments(_ command: Command) -> Result<Command, CommandError> {
      rest.isEmpty ? .success(command) : .failure(CommandError("'\(name)' takes no arguments"))
    }
    func oneNumber(_ make: (Int) -> Command) -> Result<Command, CommandError> {
      let words = rest.split(separator: " ")
      guard words.count == 1 else {
        return .failure(CommandError("'\(name)' takes one number, as in '\(name) 2'"))
      }
      return number(words[0]).map(make)
    }

    switch name {
    case "add": return title(rest).map(Command.add)
    case "toggle": return oneNumber(Command.toggle)
    case "remove": return oneNumber(Command.remove)
    case "edit": return oneNumber(Command.edit)
    case "rename":
      guard let first = rest.split(separator: " ").first else {
        return .failure(CommandError("'rename' takes a number and a title, as in 'rename 2 Buy oat milk'"))
      }
      let newTitle = String(rest.dropFirst(first.count).drop { $0.isWhitespace })
      return number(first).flatMap { index in title(newTitle).map { Command.rename(index, $0) } }
    case "text": return title(rest).map(Command.text)
    case "commit": return noArguments(.commit)
    case "discard": return noArguments(.discard)
    case "clear-done": return noArguments(.clearDone)
    case "filter":
      if rest.isEmpty { return .success(.showFilter) }
      guard let filter = Todos.Filter(rawValue: rest.lowercased()) else {
        return .failure(CommandError("'filter' takes all, active or done, not '\(rest.shownInMessage())'"))
      }
      return .success(.filter(filter))
    case "search": return .success(.search(rest))
    case "undo": return noArguments(.undo)
    case "redo": return noArguments(.redo)
    case "list", "ls": return noArguments(.list)
    case "save":
      if rest == "--force" { return .success(.forceSave(nil)) }
      if rest.hasPrefix("--force ") {
        return path(rest.dropFirst("--force ".count).trimmingCharacters(in: .whitespaces)).map(
          Command.forceSave)
      }
      return path(rest).map(Command.save)
    case "load": return path(rest).map(Command.load)
    case "wait": return noArguments(.wait)
    case "help", "?": return noArguments(.help)
    case "quit", "exit": return noArguments(.quit)
    default:
      return .failure(CommandError("unknown command '\(name.shownInMessage())'; type 'help' for the list"))
    }
  }
}

/// Why a line is not a command, or cannot be done now.
struct CommandError: Error, Equatable, CustomStringConvertible {
  let message: String

  init(_ message: String) { self.message = message }

  var description: String { message }
}

extension String {
  fileprivate func trimmingTrailingWhitespace() -> String {
    var text = self
    while text.last?.isWhitespace == true { text.removeLast() }
    return text
  }
}
