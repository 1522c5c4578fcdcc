import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

@Suite struct TodosCommandTests {
  @Test(arguments: [
    ("add Buy milk", Command.add("Buy milk")), ("toggle 2", .toggle(2)),
    ("rename 1 Oat milk", .rename(1, "Oat milk")),
    ("remove 3", .remove(3)), ("edit 1", .edit(1)), ("text New title", .text("New title")),
    ("commit", .commit),
    ("discard", .discard), ("clear-done", .clearDone), ("filter done", .filter(.done)),
    ("search mi", .search("mi")),
    ("search", .search("")), ("undo", .undo), ("redo", .redo), ("list", .list), ("save", .save(nil)),
    ("save /tmp/x.json", .save("/tmp/x.json")), ("load", .load(nil)), ("wait", .wait), ("quit", .quit),
    ("save --force", .forceSave(nil)), ("save --force /tmp/x.json", .forceSave("/tmp/x.json")),
    ("filter", .showFilter),
    // Issue 42: quotes are removed from a file name, as a shell would.
    ("save \"my list.json\"", .save("my list.json")), ("load 'my list.json'", .load("my list.json")),
    ("save --force \"a b\"", .forceSave("a b")),
  ])
  func commandsParse(line: String, command: Command) throws {
    #expect(try Command.parse(line).get() == command)
  }

  @Test(arguments: [
    ("", "empty command; type 'help' for the list"),
    ("add", "'add' needs a title"),
    ("toggle", "'toggle' takes one number, as in 'toggle 2'"),
    ("toggle x", "'toggle' needs the number of a todo in the list, not 'x'"),
    ("toggle 0", "'toggle' needs the number of a todo in the list, not '0'"),
    ("rename 2", "'rename' needs a title"),
    ("rename", "'rename' takes a number and a title, as in 'rename 2 Buy oat milk'"),
    ("filter later", "'filter' takes all, active or done, not 'later'"),
    ("undo now", "'undo' takes no arguments"),
    ("frobnicate", "unknown command 'frobnicate'; type 'help' for the list"),
    ("save \"my list.json", "'save': the file name's quote (\") is not closed"),
  ])
  func badLinesAreExplainedInOneLine(line: String, message: String) {
    #expect(Command.parse(line) == .failure(CommandError(message)))
  }

  /// Issue 42: `~` stands for the home folder in a file name (it was a folder named `~`).
  @Test func aTildeIsTheHomeFolder() throws {
    let home = try #require(ProcessInfo.processInfo.environment["HOME"])
    #expect(try Command.parse("save ~/lists/a.json").get() == .save(home + "/lists/a.json"))
    #expect(try Command.parse("load ~").get() == .load(home))
    #expect(try Command.parse("load ~other/a.json").get() == .load("~other/a.json"))
  }

  @Test func optionsParseAndBadOnesAreExplained() {
    #expect(Options.parse(["--file", "list.json"]) == .success(Options(file: "list.json")))
    #expect(Options.parse(["--file"]) == .failure(CommandError("'--file' needs a path")))
    #expect(Options.parse(["--fil\u{1B}e"]) == .failure(CommandError(#"unknown option '--fil\u{1B}e'"#)))
  }
}
