import REPLSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if !FUZZING
  /// `swift run TodosREPL [--file PATH] [--journal DIR]`: a todo list composed of small features,
  /// in the terminal. `--file PATH` loads PATH at start (a missing file starts an empty list) and
  /// makes it where `save` and `load` go. `--journal DIR` keeps the list in a durable journal in
  /// DIR: every command is on disk before the next prompt, with no `save` (see ``Journaling``).
  @main
  enum TodosREPLMain {
    static func main() async {
      let console = Console.standard(prompt: "todos> ")
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
        var session = Session(
          console: console, defaultPath: options.file.map { .success($0) } ?? Persistence.defaultPath()
        ) { _ in }
        // `--file PATH` is loaded, or said to be new; the default file is loaded if a session
        // saved it (a journal holds its own list).
        session.loadsAtStart = options.file != nil ? .always : options.journal == nil ? .ifPresent : .no
        session.journal = options.journal
        // Ctrl-C cancels a search that waits, or clears the line; twice in a row at an idle prompt
        // leaves with 130 (once any unsaved changes were warned of), as CounterREPL does.
        session.interrupts = Interrupts.stream()
        // The prompt's line ends before the shell's prompt comes back.
        session.exitOnInterrupt = {
          if console.isInteractive { console.line("") }
          exit(130)
        }
        await session.run(StandardInput.lines(console: console, endOfInputAsLine: true))
        exit(console.exitStatus)  // 1 when a piped session had a command fail
      }
    }
  }
#endif

/// The command line's options.
struct Options: Equatable {
  /// Where `save` and `load` go without a path.
  var file: String?
  /// The folder of the journal that keeps the list.
  var journal: String?
  var showHelp = false

  static let usage = "usage: TodosREPL [--file PATH] [--journal DIR] [--help]"

  static func parse(_ arguments: some Sequence<String>) -> Result<Options, CommandError> {
    var options = Options()
    var arguments = arguments.makeIterator()
    while let argument = arguments.next() {
      switch argument {
      case "--help", "-h":
        options.showHelp = true
      case "--file":
        guard let path = arguments.next(), !path.isEmpty else {
          return .failure(CommandError("'--file' needs a path"))
        }
        options.file = path
      case "--journal":
        guard let directory = arguments.next(), !directory.isEmpty else {
          return .failure(CommandError("'--journal' needs a folder"))
        }
        options.journal = directory
      default:
        return .failure(CommandError("unknown option '\(argument.shownInMessage())'"))
      }
    }
    return .success(options)
  }
}
