import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

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
