import Foundation
import REPLSupport
import Testing

@testable import TodosREPL

/// The inputs kept from fuzzing (`.ci/fuzz.sh`): seeds, and every input that once broke a rule.
func todosCorpus() -> [(name: String, bytes: Data)] {
  let directory = URL(filePath: #filePath).deletingLastPathComponent()
    .appending(path: "../Fuzz/TodosREPL").standardized
  let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
  return names.sorted().compactMap { name in
    (try? Data(contentsOf: directory.appending(path: name))).map { (name, $0) }
  }
}

@Suite struct FuzzCorpusTests {
  @Test func theCorpusIsThere() {
    #expect(todosCorpus().count >= 10)
    #expect(todosCorpus().contains { $0.name.hasSuffix(".json") })
  }

  @Test func everyKeptInputKeepsTheRules() {
    for input in todosCorpus() {
      #expect(InputInvariants.violations(input.bytes) == [], "\(input.name)")
    }
  }

  @Test func aDeeplyNestedFileIsRefusedInOneLine() {
    let nested = Data(repeating: UInt8(ascii: "["), count: 100_000)
    #expect(
      Persistence.decode(nested, from: "deep.json")
        == .failure(PersistenceError("deep.json is not a todo list: the file is not valid JSON")))
  }

  @Test func aPathIsShownOnOneLine() {
    #expect(
      Persistence.decode(Data("{}".utf8), from: "a\rb.json")
        == .failure(PersistenceError(#"a\rb.json is not a todo list: missing 'version'"#)))
  }
}
