import REPLSupport
import Testing

@Suite struct LineEditorTests {
  private func type(_ text: String, into editor: inout LineEditor) -> [LineEditor.Outcome] {
    text.utf8.map { editor.feed($0) }
  }

  @Test func returnEntersTheLineAndEmptiesTheEditor() {
    var editor = LineEditor()
    #expect(type("ad\u{7F}dd", into: &editor) == [.changed, .changed, .changed, .changed, .changed])
    #expect(editor.feed(UInt8(ascii: "\r")) == .line("add"))
    #expect(editor.text == "")
    #expect(type("+\n", into: &editor) == [.changed, .line("+")])
  }

  @Test func aMultiByteCharacterShowsWhenCompleteAndGoesWithOneBackspace() {
    var editor = LineEditor()
    #expect(type("é", into: &editor) == [.unchanged, .changed])
    #expect(type("🥛", into: &editor) == [.unchanged, .unchanged, .unchanged, .changed])
    #expect(editor.text == "é🥛")
    #expect(editor.feed(0x7F) == .changed)
    #expect(editor.text == "é")
    #expect(editor.feed(0x7F) == .changed)
    #expect(editor.feed(0x7F) == .unchanged)
  }

  @Test func ctrlUErasesCtrlDEndsOnlyAnEmptyLine() {
    var editor = LineEditor()
    _ = type("milk", into: &editor)
    #expect(editor.feed(0x04) == .unchanged)
    #expect(editor.feed(0x15) == .changed)
    #expect(editor.text == "")
    #expect(editor.feed(0x04) == .endOfInput)
  }

  @Test func arrowAndFunctionKeysAndOtherControlsAreSkipped() {
    var editor = LineEditor()
    let keys = "a\u{1B}[A\u{1B}[1;5C\u{1B}OP\u{07}\tb"
    _ = type(keys, into: &editor)
    #expect(editor.text == "ab")
  }

  @Test func clearDropsTheLine() {
    var editor = LineEditor()
    _ = type("half", into: &editor)
    editor.clear()
    #expect(editor.feed(UInt8(ascii: "\r")) == .line(""))
  }
}

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
}
