import REPLSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

#if !FUZZING
  /// `swift run CounterREPL [--seed N]`: a Station driven from the terminal.
  @main
  enum CounterREPLMain {
    static func main() async {
      let console = Console.standard(prompt: "counter> ")
      switch Options.parse(CommandLine.arguments.dropFirst()) {
      case .failure(let error):
        console.error("error: \(error)")
        console.error(Options.usage)
        exit(2)
      case .success(let options) where options.showHelp:
        console.line(Options.usage)
        console.line(Rendering.help)
        exit(console.exitStatus)  // 1 if the help could not be written (a full disk)
      case .success(let options):
        var repl = REPL(console: console) { dependencies in
          if let seed = options.seed { dependencies.random = .seeded(seed) }
        }
        // Ctrl-C cancels the work that runs, or clears the line; twice in a row at an idle prompt
        // leaves with 130, as a shell's interrupt does. Ctrl-D (the end of input) leaves with 0, or
        // with 1 when a piped session had a command fail.
        repl.interrupts = Interrupts.stream()
        // The prompt's line ends before the shell's prompt comes back.
        repl.exitOnInterrupt = {
          if console.isInteractive { console.line("") }
          exit(130)
        }
        await repl.run(StandardInput.lines(console: console))
        exit(console.exitStatus)
      }
    }
  }
#endif

/// The command line's options.
struct Options: Equatable {
  /// Makes `random` repeatable.
  var seed: UInt64?
  var showHelp = false

  static let usage = "usage: CounterREPL [--seed N] [--help]"

  static func parse(_ arguments: some Sequence<String>) -> Result<Options, CommandError> {
    var options = Options()
    var arguments = arguments.makeIterator()
    while let argument = arguments.next() {
      switch argument {
      case "--help", "-h":
        options.showHelp = true
      case "--seed":
        guard let text = arguments.next() else { return .failure(CommandError("'--seed' needs a number")) }
        guard let seed = UInt64(text) else {
          return .failure(
            CommandError("'--seed' needs a whole number from 0, not '\(text.shownInMessage())'"))
        }
        options.seed = seed
      default:
        return .failure(CommandError("unknown option '\(argument.shownInMessage())'"))
      }
    }
    return .success(options)
  }
}
