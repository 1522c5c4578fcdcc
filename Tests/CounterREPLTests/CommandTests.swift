import Dripper
import REPLSupport
import Synchronization
import Testing

@testable import CounterREPL

/// A console that writes to memory.
final class CapturedConsole: Sendable {
  private let output = Lock("")
  private let errors = Lock("")

  func console(interactive: Bool = false) -> Console {
    Console(
      prompt: "counter> ", isInteractive: interactive,
      output: { [self] text in output.withLock { $0 += text } },
      error: { [self] text in errors.withLock { $0 += text } })
  }

  var outputText: String { output.withLock { $0 } }
  var outputLines: [String] { output.withLock { $0 }.split(separator: "\n").map(String.init) }
  var errorLines: [String] { errors.withLock { $0 }.split(separator: "\n").map(String.init) }
}

/// Runs a whole session over `script`'s lines.
func session(
  _ script: [String], dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in }
)
  async -> CapturedConsole
{
  let captured = CapturedConsole()
  let (lines, continuation) = AsyncStream.makeStream(of: String.self)
  for line in script { continuation.yield(line) }
  continuation.finish()
  await REPL(console: captured.console(), dependencies: dependencies).run(lines)
  return captured
}

@Suite struct CommandTests {
  @Test(arguments: [
    ("+", Command.increase), ("inc", .increase), ("-", .decrease), ("dec", .decrease),
    ("set 42", .set(42)), ("  set   -7  ", .set(-7)), ("set -0", .set(0)),
    ("set -1000000000", .set(-1_000_000_000)), ("SET 1", .set(1)), ("reset", .reset),
    ("random", .random), ("fact", .fact), ("cancel", .cancel), ("state", .state), ("wait", .wait),
    ("help", .help), ("?", .help), ("quit", .quit), ("exit", .quit),
  ])
  func commandsParse(line: String, command: Command) throws {
    #expect(try Command.parse(line).get() == command)
  }

  @Test(arguments: [
    ("", "empty command; type 'help' for the list"),
    ("   ", "empty command; type 'help' for the list"),
    ("bogus", "unknown command 'bogus'; type 'help' for the list"),
    ("set abc", "'set' needs a whole number from -1000000000 to 1000000000, not 'abc'"),
    ("set 1000000001", "'set' needs a whole number from -1000000000 to 1000000000, not '1000000001'"),
    // Crashed before: `abs(Int.min)` overflows.
    (
      "set -9223372036854775808",
      "'set' needs a whole number from -1000000000 to 1000000000, not '-9223372036854775808'"
    ),
    (
      "set 9223372036854775807",
      "'set' needs a whole number from -1000000000 to 1000000000, not '9223372036854775807'"
    ),
    (
      "set 99999999999999999999999",
      "'set' needs a whole number from -1000000000 to 1000000000, not '99999999999999999999…'"
    ),
    ("set", "'set' takes one number, as in 'set 42'"),
    ("set 1 2", "'set' takes one number, as in 'set 42'"),
    ("inc 3", "'inc' takes no arguments"),
    (String(repeating: "x", count: 201), "line too long (201 characters; at most 200)"),
    (String(repeating: "y", count: 40), "unknown command 'yyyyyyyyyyyyyyyyyyyy…'; type 'help' for the list"),
  ])
  func badLinesAreExplainedInOneLine(line: String, message: String) {
    #expect(Command.parse(line) == .failure(CommandError(message)))
  }

  @Test func optionsParse() throws {
    #expect(try Options.parse(["--seed", "7"]).get() == Options(seed: 7))
    #expect(try Options.parse(["--help"]).get().showHelp)
    #expect(Options.parse(["--seed"]) == .failure(CommandError("'--seed' needs a number")))
    #expect(
      Options.parse(["--seed", "x"])
        == .failure(CommandError("'--seed' needs a whole number from 0, not 'x'")))
    #expect(Options.parse(["--nope"]) == .failure(CommandError("unknown option '--nope'")))
  }
}
