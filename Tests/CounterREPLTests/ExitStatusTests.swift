import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

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
