import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

@Suite struct InterruptTests {
  /// Before, Ctrl-C killed CounterREPL mid-`fact` with status 130.
  @Test func ctrlCCancelsWorkThenClearsTheLineThenLeaves() {
    let tracker = InterruptTracker()
    #expect(tracker.interrupted(workIsRunning: true) == .cancelWork)
    #expect(tracker.interrupted(workIsRunning: false) == .clearLine)
    #expect(tracker.interrupted(workIsRunning: false) == .exit)
    tracker.lineRead()
    #expect(tracker.interrupted(workIsRunning: false) == .clearLine)
    tracker.lineRead()
    #expect(tracker.interrupted(workIsRunning: false) == .clearLine)
    #expect(tracker.interrupted(workIsRunning: true) == .cancelWork)
  }
}
