import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

  /// Before, with standard output on a full device, both REPLs and JobQueue exited with 0 having
  /// written nothing. A failed write is said once, in one line, and the status is 1.
  @Test func aFailedWriteIsSaidOnceAndMakesTheStatusOne() throws {
    let full = open("/dev/full", O_WRONLY)
    try #require(full >= 0)
    defer { close(full) }
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    let console = Console.writing(prompt: "> ", isInteractive: false, output: full, error: ends[1])
    console.line("one")
    console.line("two")
    close(ends[1])
    var said = [UInt8](repeating: 0, count: 4096)
    let count = read(ends[0], &said, said.count)
    close(ends[0])
    #expect(
      String(decoding: said[0..<max(count, 0)], as: UTF8.self)
        == "error: cannot write to standard output: No space left on device\n")
    #expect(console.exitStatus == 1)
  }

  private func lines(_ script: [String]) -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    for line in script { continuation.yield(line) }
    continuation.finish()
    return lines
  }
}
