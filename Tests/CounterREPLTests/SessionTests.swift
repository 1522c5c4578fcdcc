import Dripper
import REPLSupport
import Synchronization
import Testing

@testable import CounterREPL

@Suite struct SessionTests {
  @Test func aScriptedSessionWritesOneLinePerStateChange() async {
    let clock = ImmediateClock()
    let captured = await session(
      ["+", "+", "set 10", "state", "bogus", "-", "", "random", "wait", "set 25", "fact", "wait", "cancel"],
      dependencies: {
        $0.clock = clock
        $0.random = .seeded(7)
      })
    let random = RandomGenerator.seeded(7).int(in: 1...100)
    #expect(
      captured.outputLines == [
        "count: 1", "count: 2", "count: 10", "count: 10", "count: 9",
        "count: 9 | random number on its way", "count: \(random)",
        "count: 25", "count: 25 | computing a fact about 25!", "count: 25 | 25! = 15511210043330985984000000",
      ])
    #expect(
      captured.errorLines == [
        // The empty line did nothing.
        "error: unknown command 'bogus'; type 'help' for the list"
      ])
  }

  @Test func quitAndEndOfInputCancelWhatRuns() async {
    let clock = TestClock()
    let captured = await session(["random", "quit", "+"], dependencies: { $0.clock = clock })
    // `quit` ended the session: the random number never came, and `+` was never read.
    #expect(captured.outputLines == ["count: 0 | random number on its way"])
    #expect(clock.sleeperCount == 0)
  }

  @Test func helpListsEveryCommand() async {
    let captured = await session(["help"])
    #expect(captured.outputLines.first == "Commands:")
    #expect(captured.outputLines.count == Command.summary.count + 1)
  }
}
