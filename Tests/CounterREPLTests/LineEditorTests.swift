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
