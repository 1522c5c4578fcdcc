import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

@Suite struct LineReaderTests {
  /// Before, standard input was read ahead into an unbounded stream: `yes + | CounterREPL` grew
  /// by megabytes a second. The reader now stays at most `capacity` lines ahead.
  @Test func theReaderStaysAFewLinesAheadOfTheConsumer() async {
    let total = 2_000
    let capacity = 4
    // (lines read, lines consumed, the largest lead seen when a line was read)
    // The package's Lock, which ThreadSanitizer sees (the standard library's Mutex it does not).
    let counts = Lock((read: 0, consumed: 0, lead: 0))
    let reader = LineReader(capacity: capacity) {
      counts.withLock { counts -> String? in
        guard counts.read < total else { return nil }
        counts.read += 1
        counts.lead = max(counts.lead, counts.read - counts.consumed)
        return "\(counts.read)"
      }
    }
    var received: [String] = []
    for await line in reader {
      received.append(line)
      counts.withLock { $0.consumed += 1 }
    }
    #expect(received == (1...total).map { "\($0)" })
    // One more than the capacity: a line can be taken before the consumer counts it.
    #expect(counts.withLock { $0.lead } <= capacity + 1)
  }

  @Test func emptyInputEndsAtOnce() async {
    var iterator = LineReader { nil }.makeAsyncIterator()
    let first = await iterator.next()
    let second = await iterator.next()
    #expect(first == nil && second == nil)
  }
}

@Suite struct TerminalModeTests {
  /// Before, a terminal's input made the session interactive even with the output redirected:
  /// the file got the banner, the prompts and cursor control.
  @Test func promptsOnlyWhenBothEndsAreATerminalAndColourOnlyOnOne() {
    #expect(
      TerminalMode.decide(inputIsTerminal: true, outputIsTerminal: true, noColor: false)
        == TerminalMode(isInteractive: true, usesColor: true))
    #expect(
      TerminalMode.decide(inputIsTerminal: true, outputIsTerminal: false, noColor: false)
        == TerminalMode(isInteractive: false, usesColor: false))
    #expect(
      TerminalMode.decide(inputIsTerminal: false, outputIsTerminal: true, noColor: false)
        == TerminalMode(isInteractive: false, usesColor: true))
    #expect(
      TerminalMode.decide(inputIsTerminal: true, outputIsTerminal: true, noColor: true)
        == TerminalMode(isInteractive: true, usesColor: false))
  }
}

@Suite struct ExitStatusTests {
  /// Before, a piped session exited with 0 whatever failed, so a script could not tell.
  @Test func aPipedSessionWithAFailedCommandExitsWithOne() async {
    let captured = CapturedConsole()
    let piped = captured.console()
    await REPL(console: piped).run(lines(["+", "bogus", "-"]))
    #expect(piped.exitStatus == 1)
    let clean = captured.console()
    await REPL(console: clean).run(lines(["+", "", "-"]))
    #expect(clean.exitStatus == 0)
    // Typed by a person, a mistyped command is not the session failing.
    let typed = captured.console(interactive: true)
    await REPL(console: typed).run(lines(["bogus"]))
    #expect(typed.exitStatus == 0)
  }

  private func lines(_ script: [String]) -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    for line in script { continuation.yield(line) }
    continuation.finish()
    return lines
  }
}

@Suite struct InterruptTests {
  /// Before, Ctrl-C killed CounterREPL mid-`fact` with status 130.
  @Test func ctrlCCancelsWorkThenClearsTheLineThenLeaves() {
    let tracker = InterruptTracker()
    #expect(tracker.interrupted(workIsRunning: true) == .cancelWork)
    #expect(tracker.interrupted(workIsRunning: false) == .clearLine)
    #expect(tracker.interrupted(workIsRunning: false) == .exit)
    tracker.lineRead()
    #expect(tracker.interrupted(workIsRunning: false) == .clearLine)
    tracker.lineRead()
    #expect(tracker.interrupted(workIsRunning: false) == .clearLine)
    #expect(tracker.interrupted(workIsRunning: true) == .cancelWork)
  }
}
