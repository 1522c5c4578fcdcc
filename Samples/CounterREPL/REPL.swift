import Dripper
import REPLSupport

/// A session: reads commands, pours their actions into a Station, and writes a line per state
/// change.
///
/// Input and output are injected, so that tests run whole sessions in memory.
struct REPL {
  let console: Console
  /// Changes the Station's dependencies: a seed for `random`, a test clock.
  let dependencies: @Sendable (inout DependencyValues) -> Void
  /// Ctrl-C presses (``Interrupts/stream()`` in the program, a stream of its own in tests).
  var interrupts: AsyncStream<Void>?
  /// Leaves the program after a second Ctrl-C at an idle prompt.
  var exitOnInterrupt: @Sendable () -> Void = {}

  init(console: Console, dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in }) {
    self.console = console
    self.dependencies = dependencies
  }

  /// Runs until `quit` or the end of `lines`, then cancels what still runs.
  func run(_ lines: some AsyncSequence<String, Never>) async {
    let console = self.console
    // The observer writes each new state as it is reduced: one line per change, in order, whether
    // a command or an effect caused it.
    let printer = DripperObserver<Counter.State, Counter.Action>(didReduce: { transition in
      if transition.new != transition.old { console.stateLine(Rendering.line(for: transition.new)) }
    })
    let station = Station(initialState: Counter.State(), observers: [printer]) {
      Counter()
    } withDependencies: {
      dependencies(&$0)
    }
    if console.isInteractive {
      console.line("Counter REPL: type 'help' for the commands, 'quit' to leave.")
      console.line(Rendering.line(for: await station.state))
    }
    var pending: [PourTask] = []
    // What the last Ctrl-C meant, until a line is read: two in a row at an idle prompt leave.
    let tracker = InterruptTracker()
    let interruptHandler = interrupts.map { interrupts in
      Task { [exitOnInterrupt] in
        for await _ in interrupts {
          let state = await station.state
          let isWorking = state.isRandomPending || state.factInProgress != nil
          switch tracker.interrupted(workIsRunning: isWorking) {
          case .cancelWork:
            // The feature's own cancel: its effects end and its state says so.
            console.interrupted()
            await station.pour(.cancelTapped).finish()
            console.showPrompt()
          case .clearLine:
            console.interrupted()
            console.showPrompt()
          case .exit:
            exitOnInterrupt()
          }
        }
      }
    }
    defer { interruptHandler?.cancel() }
    console.showPrompt()
    session: for await line in lines {
      console.leavePrompt(line)
      tracker.lineRead()
      // An empty line does nothing, as at a shell's prompt.
      if line.allSatisfy(\.isWhitespace) {
        console.showPrompt()
        continue
      }
      switch Command.parse(line) {
      case .failure(let error):
        console.error("error: \(error)")
      case .success(.quit):
        break session
      case .success(.help):
        console.line(Rendering.help)
      case .success(.state):
        console.line(Rendering.line(for: await station.state))
      case .success(.wait):
        for task in pending { await task.finish() }
        pending.removeAll()
      case .success(let command):
        let task = station.pour(command.action!)
        if command == .random || command == .fact { pending.append(task) }
        // The reduction, and the line it writes, happen before the next command is read.
        await station.reducePending()
      }
      console.showPrompt()
    }
    if console.isInteractive { console.line("") }
    for task in pending { task.cancel() }
    for task in pending { await task.finish() }
  }
}
