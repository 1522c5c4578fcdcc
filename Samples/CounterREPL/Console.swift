import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the REPL writes: standard output and standard error, or, in tests, memory.
///
/// In an interactive session it keeps track of the prompt, so that a state line arriving while
/// the user types (a random number, a fact) is written above the prompt rather than across it.
final class Console: Sendable {
  static let prompt = "counter> "

  let isInteractive: Bool
  private let writeOutput: @Sendable (String) -> Void
  private let writeError: @Sendable (String) -> Void
  private let isAtPrompt = Mutex(false)

  init(
    isInteractive: Bool, output: @escaping @Sendable (String) -> Void,
    error: @escaping @Sendable (String) -> Void
  ) {
    self.isInteractive = isInteractive
    self.writeOutput = output
    self.writeError = error
  }

  /// The process's standard output and error; interactive when standard input is a terminal.
  static var standard: Console {
    Console(
      isInteractive: isatty(STDIN_FILENO) == 1,
      output: { write($0, to: STDOUT_FILENO) },
      error: { write($0, to: STDERR_FILENO) })
  }

  /// Writes a line to standard output.
  func line(_ text: String) {
    writeOutput(text + "\n")
  }

  /// Writes a line to standard error.
  func error(_ text: String) {
    writeError(text + "\n")
  }

  /// Writes a state line, which may arrive at any time.
  func stateLine(_ text: String) {
    let atPrompt = isAtPrompt.withLock { $0 }
    if atPrompt {
      // Erase the prompt, write the line, and put the prompt back.
      writeOutput("\r\u{1B}[2K" + text + "\n" + Self.prompt)
    } else {
      writeOutput(text + "\n")
    }
  }

  /// Shows the prompt, in an interactive session.
  func showPrompt() {
    guard isInteractive else { return }
    isAtPrompt.withLock { $0 = true }
    writeOutput(Self.prompt)
  }

  /// The user has entered a line.
  func leavePrompt() {
    isAtPrompt.withLock { $0 = false }
  }

  /// Writes all of `text` to a file descriptor, unbuffered.
  private static func write(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeMutableBytes { buffer in
        systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      }
      guard written > 0 else { return }
      offset += written
    }
  }
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#elseif canImport(Musl)
  private let systemWrite = Musl.write
#elseif canImport(Darwin)
  private let systemWrite = Darwin.write
#endif
