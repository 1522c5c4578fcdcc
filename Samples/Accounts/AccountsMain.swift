import Dripper
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `swift run -c release Accounts --data DIR --accounts 1000000`: a service of bank accounts, one
/// key each, run by a `StationHost` that keeps at most `--resident` of them in memory.
@main
enum AccountsMain {
  static func main() async {
    let options: Options
    switch Options.parse(CommandLine.arguments.dropFirst()) {
    case .failure(let error):
      writeError("error: \(error)\n\(Options.usage)\n")
      exit(2)
    case .success(let parsed) where parsed.showHelp:
      writeOutput(Options.usage)
      exit(0)
    case .success(let parsed):
      options = parsed
    }
    let service: Service
    do {
      service = try Service(options)
    } catch {
      writeError("error: \(error)\n")
      exit(1)
    }
    exit(await options.verify ? service.verify() : service.run())
  }
}

/// Writes a line to standard output at once, to a pipe or a file too: a progress line is seen as
/// it is printed.
func writeOutput(_ line: String) {
  var bytes = Array((line + "\n").utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeMutableBytes {
      write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
    }
    if written < 0, errno == EINTR { continue }
    guard written > 0 else { return }
    offset += written
  }
}

/// Writes `text` to standard error.
func writeError(_ text: String) {
  var bytes = Array(text.utf8)
  _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The command line.
struct Options: Equatable {
  var data: String?
  var accounts = 10_000
  var resident = 10_000
  var bonusAfter: Double = 2
  var workers = 32
  var verify = false
  var showHelp = false

  static let usage = """
    usage: Accounts --data DIR [--accounts N] [--resident N] [--bonus-after SECONDS] [--verify]
      --data DIR             where the accounts are kept: each a journal, resumed after a crash
      --accounts N           accounts to open, numbered from 0 (default 10000)
      --resident N           most accounts in memory at once (default 10000)
      --bonus-after SECONDS  a welcome bonus is paid this long after an account opens (default 2):
                             a reminder that survives restarts
      --verify               reads every account and checks it was opened once
    Opens the accounts not opened yet (a request id each: a retry is applied once), prints a
    progress line a second, then a summary. Bonuses not due yet are paid by a later run.
    Exit status: 0 when done, 1 when an account could not be opened or checked, 2 for bad flags.
    """

  static func parse(_ arguments: some Sequence<String>) -> Result<Options, OptionError> {
    var options = Options()
    var arguments = arguments.makeIterator()
    func number(_ flag: String, _ range: ClosedRange<Int>) -> Result<Int, OptionError> {
      guard let text = arguments.next() else { return .failure(OptionError("'\(flag)' needs a number")) }
      guard let value = Int(text), range.contains(value) else {
        return .failure(
          OptionError(
            "'\(flag)' needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text.prefix(20))'"
          ))
      }
      return .success(value)
    }
    while let argument = arguments.next() {
      switch argument {
      case "--help", "-h": options.showHelp = true
      case "--verify": options.verify = true
      case "--data":
        guard let path = arguments.next(), !path.isEmpty else {
          return .failure(OptionError("'--data' needs a folder"))
        }
        options.data = path
      case "--accounts":
        switch number(argument, 0...100_000_000) {
        case .success(let value): options.accounts = value
        case .failure(let error): return .failure(error)
        }
      case "--resident":
        switch number(argument, 1...10_000_000) {
        case .success(let value): options.resident = value
        case .failure(let error): return .failure(error)
        }
      case "--bonus-after":
        guard let text = arguments.next(), let seconds = Double(text), seconds >= 0, seconds <= 86_400 else {
          return .failure(OptionError("'--bonus-after' needs a number of seconds from 0 to 86400"))
        }
        options.bonusAfter = seconds
      default:
        return .failure(OptionError("unknown option '\(argument.prefix(40))'"))
      }
    }
    if !options.showHelp, options.data == nil { return .failure(OptionError("'--data DIR' is needed")) }
    return .success(options)
  }
}

/// Why the command line is wrong, in one line.
struct OptionError: Error, Equatable, CustomStringConvertible {
  let message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}
