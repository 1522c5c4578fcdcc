import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a REPL talks to the terminal.
public struct TerminalMode: Equatable, Sendable {
  /// A mode, as given.
  public init(isInteractive: Bool, usesColor: Bool) {
    self.isInteractive = isInteractive
    self.usesColor = usesColor
  }

  /// Whether to show a prompt and a banner, and redraw the prompt around late output.
  public let isInteractive: Bool
  /// Whether output may use ANSI colours.
  public let usesColor: Bool

  /// The mode for these standard streams: interactive only when a person types at a terminal
  /// *and* reads the output on one (a redirected output gets no prompt and no cursor control);
  /// colour only on a terminal, and never when `NO_COLOR` is set to anything but the empty
  /// string (no-color.org).
  public static func decide(inputIsTerminal: Bool, outputIsTerminal: Bool, noColor: Bool) -> TerminalMode {
    TerminalMode(isInteractive: inputIsTerminal && outputIsTerminal, usesColor: outputIsTerminal && !noColor)
  }
}

/// Where a REPL writes: standard output and standard error, or, in tests, memory.
///
/// In an interactive session it keeps the prompt and the line being typed (a ``LineEditor``, fed
/// by ``keyPressed(_:)``), so that a line arriving while the user types (a result an effect
/// delivered) is written above the prompt, and the prompt and the typed text are drawn again
/// below it, as they were.
public final class Console: Sendable {
  /// Whether a person types at a terminal: then the REPL shows a prompt.
  public let isInteractive: Bool
  /// Whether output may use ANSI colors: standard output is a terminal and `NO_COLOR` is unset.
  public let usesColor: Bool
  private let prompt: String
  private let writeOutput: @Sendable (String) -> Void
  private let writeError: @Sendable (String) -> Void
  /// Whether the prompt shows, and the line being typed. Writes to the terminal that involve them
  /// happen inside the lock, so that a line from an effect and a key's redraw never interleave.
  private let prompting = Mutex(Prompting())
  private let errorCount = Mutex(0)
  /// Writes to the output that failed (a full disk): they make the exit status 1.
  private let failedWrites: WriteFailures
  /// The terminal's width in columns, read at each redraw (the window may be resized).
  private let columns: @Sendable () -> Int

  /// A console that writes through closures, for tests.
  public convenience init(
    prompt: String, isInteractive: Bool, usesColor: Bool = false,
    output: @escaping @Sendable (String) -> Void,
    error: @escaping @Sendable (String) -> Void,
    columns: @escaping @Sendable () -> Int = { 80 }
  ) {
    self.init(
      prompt: prompt, isInteractive: isInteractive, usesColor: usesColor, output: output, error: error,
      failedWrites: WriteFailures(), columns: columns)
  }

  private init(
    prompt: String, isInteractive: Bool, usesColor: Bool, output: @escaping @Sendable (String) -> Void,
    error: @escaping @Sendable (String) -> Void, failedWrites: WriteFailures,
    columns: @escaping @Sendable () -> Int
  ) {
    self.columns = columns
    self.prompt = prompt
    self.isInteractive = isInteractive
    self.usesColor = usesColor
    self.writeOutput = output
    self.writeError = error
    self.failedWrites = failedWrites
  }

  /// The process's standard output and error, in the mode ``TerminalMode/decide(inputIsTerminal:outputIsTerminal:noColor:)``
  /// chooses for them.
  public static func standard(prompt: String) -> Console {
    let mode = TerminalMode.decide(
      inputIsTerminal: isatty(STDIN_FILENO) == 1, outputIsTerminal: isatty(STDOUT_FILENO) == 1,
      noColor: getenv("NO_COLOR").map { $0.pointee != 0 } ?? false)
    return writing(
      prompt: prompt, isInteractive: mode.isInteractive, usesColor: mode.usesColor, output: STDOUT_FILENO,
      error: STDERR_FILENO)
  }

  /// A console writing to file descriptors. A write to `output` that fails (a full disk, a closed
  /// pipe) is said once on `error`, in one line, as coreutils do, and makes ``exitStatus`` 1.
  public static func writing(
    prompt: String, isInteractive: Bool, usesColor: Bool = false, output: Int32, error: Int32
  ) -> Console {
    let failures = WriteFailures()
    return Console(
      prompt: prompt, isInteractive: isInteractive, usesColor: usesColor,
      output: { text in
        guard let code = write(text, to: output), failures.first(code) else { return }
        _ = write("error: cannot write to standard output: \(String(cString: strerror(code)))\n", to: error)
      },
      error: { text in
        if let code = write(text, to: error) { _ = failures.first(code) }
      },
      failedWrites: failures,
      columns: {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
      })
  }

  /// Writes a line to standard output. Written at a prompt, it ends the prompt's line: the next
  /// ``showPrompt()`` draws a new one.
  public func line(_ text: String) {
    prompting.withLock { prompting in
      prompting.isAtPrompt = false
      writeOutput(text + "\n")
    }
  }

  /// Writes a line to standard error that is not a failure (a note of the runtime's): it leaves
  /// ``exitStatus`` as it is.
  public func note(_ text: String) {
    prompting.withLock { prompting in
      prompting.isAtPrompt = false
      writeError(text + "\n")
    }
  }

  /// Writes a line to standard error: something failed, and ``exitStatus`` says so.
  public func error(_ text: String) {
    errorCount.withLock { $0 += 1 }
    prompting.withLock { prompting in
      prompting.isAtPrompt = false
      writeError(text + "\n")
    }
  }

  /// The status to exit with at the end of the input: 1 when a session that no person typed (its
  /// commands piped or read from a file) wrote an error, so that a script can tell; 0 otherwise.
  public var exitStatus: Int32 {
    if failedWrites.any { return 1 }
    return !isInteractive && errorCount.withLock({ $0 }) > 0 ? 1 : 0
  }

  /// Writes a line that may arrive at any time, such as a state an effect changed.
  public func stateLine(_ text: String) {
    prompting.withLock { prompting in
      if prompting.isAtPrompt {
        // Erase the prompt and the typed text, write the line, and draw them again below it.
        writeOutput(erase(prompting) + text + "\n" + redraw(&prompting))
      } else {
        writeOutput(text + "\n")
      }
    }
  }

  /// Shows the prompt, in an interactive session, with what was typed ahead of it.
  public func showPrompt() {
    guard isInteractive else { return }
    prompting.withLock { prompting in
      // Once: a Ctrl-C that cancels a command's work shows the prompt, and so does the command
      // when it ends, whichever comes first: never two prompts on one line.
      guard !prompting.isAtPrompt else { return }
      prompting.isAtPrompt = true
      writeOutput(redraw(&prompting))
    }
  }

  /// Moves to where the prompt starts and erases it and the typed text, over every row they
  /// wrapped onto.
  private func erase(_ prompting: Prompting) -> String {
    let rowsUp = prompting.drawn > 0 ? (prompting.drawn - 1) / max(1, columns()) : 0
    return rowsUp == 0 ? "\r\u{1B}[2K" : "\r\u{1B}[\(rowsUp)A\u{1B}[J"
  }

  /// The prompt and the typed text, to write where the prompt starts; notes their length.
  private func redraw(_ prompting: inout Prompting) -> String {
    let text = prompt + prompting.editor.text.shownSafely()
    prompting.drawn = text.count
    return text
  }

  /// A key read from a terminal in raw mode (see ``StandardInput/lines(console:)``): the line
  /// being typed changes, and is drawn again if the prompt shows; Return ends it.
  public func keyPressed(_ byte: UInt8) -> LineEditor.Outcome {
    prompting.withLock { prompting in
      let outcome = prompting.editor.feed(byte)
      switch outcome {
      case .changed where prompting.isAtPrompt:
        writeOutput(erase(prompting) + redraw(&prompting))
      case .line where prompting.isAtPrompt, .endOfInput where prompting.isAtPrompt:
        // The terminal no longer echoes Return: end the line on screen. The prompt is used up:
        // what is typed next, before the next prompt, is type-ahead.
        prompting.isAtPrompt = false
        prompting.linesEnteredAtPrompt += 1
        writeOutput("\n")
      case .changed, .unchanged, .line, .endOfInput:
        // Typed ahead while a command runs: shown when its prompt is (see `leavePrompt(_:)`).
        break
      }
      return outcome
    }
  }

  /// A Ctrl-C arrived: in an interactive session, drop the line being typed and end the line at
  /// the prompt, so that what follows starts on a line of its own.
  public func interrupted() {
    guard isInteractive else { return }
    prompting.withLock { prompting in
      prompting.isAtPrompt = false
      prompting.editor.clear()
      writeOutput("\n")
    }
  }

  /// The session took `line` to run. A line typed ahead, while the command before it ran, is
  /// shown now after its prompt, as a shell shows type-ahead.
  public func leavePrompt(_ line: String) {
    prompting.withLock { prompting in
      if prompting.linesEnteredAtPrompt > 0 {
        prompting.linesEnteredAtPrompt -= 1
      } else if prompting.isAtPrompt {
        writeOutput(erase(prompting) + prompt + line.shownSafely() + "\n")
      }
      prompting.isAtPrompt = false
    }
  }

  /// Writes all of `text` to a file descriptor, unbuffered; the error number if a write failed.
  private static func write(_ text: String, to descriptor: Int32) -> Int32? {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeMutableBytes { buffer in
        systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return written < 0 ? errno : EIO }
      offset += written
    }
    return nil
  }
}

/// The writes of a console that failed.
private final class WriteFailures: Sendable {
  private let count = Mutex(0)

  /// Counts a failure; whether it is the first, to say once.
  func first(_ code: Int32) -> Bool {
    count.withLock { count in
      defer { count += 1 }
      return count == 0
    }
  }

  /// Whether any write failed.
  var any: Bool { count.withLock { $0 > 0 } }
}

/// The prompt's part of a console's state.
private struct Prompting {
  var isAtPrompt = false
  /// The characters the prompt and the typed text take on screen, where the cursor ends: how
  /// many rows to go up to erase them when the text has wrapped past the terminal's width.
  var drawn = 0
  /// Lines entered with Return at a prompt, not yet taken by the session: they are on screen.
  var linesEnteredAtPrompt = 0
  var editor = LineEditor()
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#elseif canImport(Musl)
  private let systemWrite = Musl.write
#elseif canImport(Darwin)
  private let systemWrite = Darwin.write
#endif
