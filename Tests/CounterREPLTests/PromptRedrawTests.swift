import REPLSupport
import Testing

@Suite struct PromptRedrawTests {
  private func keys(_ text: String, _ console: Console) {
    for byte in text.utf8 { _ = console.keyPressed(byte) }
  }

  /// Before, a line from an effect erased the prompt and drew it again without what the user had
  /// typed, which was lost from the screen though still in the terminal's line buffer.
  @Test func aLineArrivingWhileTheUserTypesIsWrittenAboveThePromptAndTheTypedText() {
    let captured = CapturedConsole()
    let console = captured.console(interactive: true)
    console.showPrompt()
    keys("se", console)
    console.stateLine("count: 39")
    #expect(captured.outputText.hasSuffix("counter> se\r\u{1B}[2Kcount: 39\ncounter> se"))
    keys("t 5\r", console)
    console.leavePrompt("set 5")
    #expect(captured.outputText.hasSuffix("counter> set 5\n"))
  }

  @Test func aLineTypedAheadIsShownAfterItsPrompt() {
    let captured = CapturedConsole()
    let console = captured.console(interactive: true)
    console.showPrompt()
    keys("fact\r", console)
    keys("+\r", console)  // typed while `fact` runs: not drawn yet
    console.leavePrompt("fact")
    console.stateLine("count: 0 | computing")
    #expect(captured.outputText.hasSuffix("counter> fact\ncount: 0 | computing\n"))
    console.showPrompt()
    console.leavePrompt("+")
    #expect(captured.outputText.hasSuffix("count: 0 | computing\ncounter> \r\u{1B}[2Kcounter> +\n"))
  }

  /// Issue 42: Ctrl-C during `wait` cancels the work and shows the prompt, and `wait` ending shows
  /// it too: two prompts on one line ("todos> todos> ").
  @Test func thePromptIsDrawnOnceWhoeverAsksFirst() {
    let captured = CapturedConsole()
    let console = captured.console(interactive: true)
    console.leavePrompt("wait")
    console.interrupted()  // Ctrl-C: the line ends
    console.showPrompt()  // the handler, once the work is cancelled
    console.showPrompt()  // the command, as `wait` returns
    #expect(captured.outputText == "\ncounter> ")
    // A line written at the prompt ends its line: the next prompt is drawn.
    console.line("The list has unsaved changes.")
    console.showPrompt()
    #expect(captured.outputText == "\ncounter> The list has unsaved changes.\ncounter> ")
  }
}
