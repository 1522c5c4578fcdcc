import REPLSupport

/// What must hold for any input to the REPL's parsers, whatever the bytes.
///
/// The libFuzzer entry point below feeds it random inputs (`.ci/fuzz.sh`), and `CounterREPLTests`
/// replays the kept corpus through it, so an input that once broke a rule stays a test.
enum ParserInvariants {
  /// Parses each line of `bytes` as a command and as a command-line argument; returns the rules
  /// broken, empty when all hold.
  static func violations(_ bytes: some Collection<UInt8>) -> [String] {
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var broken: [String] = []
    for line in lines {
      if case .failure(let error) = Command.parse(line) {
        broken += MessageRules.violations(of: error.message, for: "command \(line.debugDescription)")
      }
    }
    if case .failure(let error) = Options.parse(lines) {
      broken += MessageRules.violations(of: error.message, for: "arguments \(lines.debugDescription)")
    }
    return broken
  }
}

#if FUZZING
  /// The libFuzzer entry point, compiled only into `.ci/fuzz.sh`'s build: a broken rule is a crash
  /// that libFuzzer keeps.
  @c(LLVMFuzzerTestOneInput)
  public func fuzzParsers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let broken = ParserInvariants.violations(UnsafeBufferPointer(start: data, count: size))
    if let first = broken.first { fatalError(first) }
    return 0
  }
#endif
