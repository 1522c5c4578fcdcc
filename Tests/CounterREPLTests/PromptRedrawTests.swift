import Dripper
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

  /// Issue 42: a typed line past the terminal's width wrapped onto a second row, and the redraw
  /// erased only the last row, leaving the first on screen above each redraw.
  @Test func aTypedLineWiderThanTheTerminalIsErasedOverEveryRowItTakes() {
    let output = Lock("")
    let console = Console(
      prompt: "counter> ", isInteractive: true, output: { text in output.withLock { $0 += text } },
      error: { _ in }, columns: { 20 })
    console.showPrompt()
    for byte in "set 12345678901".utf8 { _ = console.keyPressed(byte) }  // 9 + 15 = 24 columns: two rows
    output.withLock { $0 = "" }
    console.stateLine("count: 1")
    #expect(output.withLock { $0 } == "\r\u{1B}[1A\u{1B}[Jcount: 1\ncounter> set 12345678901")
    output.withLock { $0 = "" }
    _ = console.keyPressed(0x7F)  // backspace: 23 columns, still two rows
    #expect(output.withLock { $0 } == "\r\u{1B}[1A\u{1B}[Jcounter> set 1234567890")
    output.withLock { $0 = "" }
    for _ in 0..<4 { _ = console.keyPressed(0x7F) }  // 19 columns: one row
    #expect(output.withLock { $0 }.hasSuffix("\r\u{1B}[2Kcounter> set 123456"))
  }
}
