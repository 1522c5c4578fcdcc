import Dripper
import Foundation
import REPLSupport

/// What must hold for any input to the REPL's parsers and to its file loader, whatever the bytes.
///
/// The libFuzzer entry point below feeds it random inputs (`.ci/fuzz.sh`), and `TodosREPLTests`
/// replays the kept corpus through it, so an input that once broke a rule stays a test.
enum InputInvariants {
  /// Reads `bytes` as lines of commands, as command-line arguments, and as a saved list; returns
  /// the rules broken, empty when all hold.
  static func violations(_ bytes: some Collection<UInt8>) -> [String] {
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var broken: [String] = []
    for line in lines {
      switch Command.parse(line) {
      case .failure(let error):
        broken += MessageRules.violations(of: error.message, for: "command \(line.debugDescription)")
      case .success(.add(let title)), .success(.text(let title)), .success(.rename(_, let title)):
        if title.isEmpty || title.first!.isWhitespace || title.last!.isWhitespace {
          broken.append("title \(title.debugDescription) from command \(line.debugDescription)")
        }
      case .success: break
      }
    }
    if case .failure(let error) = Options.parse(lines) {
      broken += MessageRules.violations(of: error.message, for: "arguments \(lines.debugDescription)")
    }
    broken += documentViolations(Data(bytes))
    return broken
  }

  /// A file either loads, and then saves and loads back to the same list, or is refused in one
  /// line.
  static func documentViolations(_ data: Data) -> [String] {
    switch Persistence.decode(data, from: "todos.json") {
    case .failure(let error):
      return MessageRules.violations(of: error.message, for: "file \(data.count) bytes")
    case .success(let document):
      guard let saved = try? JSONEncoder().encode(document) else {
        return ["a loaded list does not encode: \(document)"]
      }
      guard case .success(let reloaded) = Persistence.decode(saved, from: "todos.json"), reloaded == document
      else {
        return ["a loaded list does not load back the same: \(document)"]
      }
      return renderingViolations(of: document)
    }
  }
}

extension InputInvariants {
  /// A loaded list, shown without colours, is one line per todo and a summary, with no control
  /// character but the line breaks between them: nothing in a file can drive the terminal.
  static func renderingViolations(of document: Document) -> [String] {
    var state = Todos.State(rows: IdentifiedArray(document.todos))
    state.search = document.todos.first?.title ?? ""
    state.editor = document.todos.first.map { Editor.State(rowID: $0.id, draft: $0.title) }
    let shown = Rendering.view(of: state, colors: false)
    let controls = shown.unicodeScalars.filter { scalar in
      let category = scalar.properties.generalCategory
      return scalar != "\n" && (category == .control || category == .format)
    }
    guard controls.isEmpty else {
      return ["showing a loaded list prints control characters: \(shown.debugDescription)"]
    }
    let lines = shown.split(separator: "\n", omittingEmptySubsequences: false).count
    guard lines <= state.visible.count + 3 else {
      return ["showing a loaded list prints \(lines) lines for \(state.visible.count) todos"]
    }
    return []
  }
}

#if FUZZING
  /// The libFuzzer entry point, compiled only into `.ci/fuzz.sh`'s build: a broken rule is a crash
  /// that libFuzzer keeps.
  @c(LLVMFuzzerTestOneInput)
  public func fuzzInputs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let broken = InputInvariants.violations(UnsafeBufferPointer(start: data, count: size))
    if let first = broken.first { fatalError(first) }
    return 0
  }
#endif
