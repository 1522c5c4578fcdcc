import Foundation
import REPLSupport
import Testing

@testable import CounterREPL

/// The inputs kept from fuzzing (`.ci/fuzz.sh`): seeds, and every input that once broke a rule.
func counterCorpus() -> [(name: String, bytes: Data)] {
  let directory = URL(filePath: #filePath).deletingLastPathComponent()
    .appending(path: "../Fuzz/CounterREPL").standardized
  let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
  return names.sorted().compactMap { name in
    (try? Data(contentsOf: directory.appending(path: name))).map { (name, $0) }
  }
}

@Suite struct FuzzCorpusTests {
  @Test func theCorpusIsThere() {
    #expect(counterCorpus().count >= 10)
    #expect(counterCorpus().contains { $0.name.hasPrefix("crash-") })
  }

  @Test func everyKeptInputKeepsTheRules() {
    for input in counterCorpus() {
      #expect(ParserInvariants.violations(input.bytes) == [], "\(input.name)")
    }
  }

  /// The first input the fuzzer kept: an unknown option echoed a carriage return into the message.
  @Test func anUnknownOptionIsShownOnOneLine() {
    #expect(
      Options.parse(["u4\u{12}\r\r"]) == .failure(CommandError(#"unknown option 'u4\u{12}\r\r'"#)))
  }

  /// The second: twenty escaped control characters made an error longer than a line.
  @Test func quotedInputIsCutAfterItsEscapes() {
    let line = String(repeating: "\u{14}", count: 21) + "dec"
    #expect(
      Command.parse(line)
        == .failure(
          CommandError(#"unknown command '\u{14}\u{14}\u{14}…'; type 'help' for the list"#)))
  }

  @Test func shownInMessageEscapesAndCuts() {
    #expect("plain".shownInMessage() == "plain")
    #expect("4\r2\n".shownInMessage() == #"4\r2\n"#)
    #expect("\u{1B}[2J".shownInMessage() == #"\u{1B}[2J"#)
    #expect("a\u{2028}b".shownInMessage() == #"a\u{2028}b"#)
    #expect(String(repeating: "x", count: 25).shownInMessage() == String(repeating: "x", count: 20) + "…")
    #expect(String(repeating: "x", count: 20).shownInMessage() == String(repeating: "x", count: 20))
  }
}
