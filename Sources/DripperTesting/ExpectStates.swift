public import Dripper
import Synchronization

/// Builds a feature, pours actions into it, and checks the states it goes through: the simple case,
/// in the style of bloc_test.
///
/// ```swift
/// @Test func counting() async {
///   await expectStates(
///     initialState: Counter.State(), dripper: Counter(),
///     act: [.increase, .increase, .decrease],
///     expect: [Counter.State(count: 1), Counter.State(count: 2), Counter.State(count: 1)])
/// }
/// ```
///
/// The states are those after each reduction that changed the state, in order, including the
/// reductions of actions effects poured, once every effect has finished (within `timeout`).
/// Dependencies resolve to their test values.
public nonisolated(nonsending) func expectStates<D: Dripper>(
  initialState: D.State,
  dripper: D,
  withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
  act actions: [D.Action],
  expect expected: [D.State],
  timeout: Duration = .seconds(5),
  reporter: FailureReporter = .automatic,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async where D.State: Equatable {
  let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  let states = Lock<[D.State]>([])
  // Diagnostics arrive on the Station's tasks, where no test is current: report them at the end.
  let diagnostics = Lock<[Diagnostic]>([])
  let recorder = DripperObserver<D.State, D.Action>(didReduce: { transition in
    if transition.new != transition.old { states.withLock { $0.append(transition.new) } }
  })
  let station = Station(initialState: initialState, observers: [recorder]) {
    dripper
  } withDependencies: {
    $0 = .test(reporting: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
    prepareDependencies(&$0)
  }
  let tasks = actions.map { station.pour($0) }
  let finished = await completes(within: timeout) {
    for task in tasks { await task.finish() }
  }
  if !finished {
    reporter.fail(
      "Effects were still running after \(timeout); the states below are those so far.", at: location)
  }
  for diagnostic in diagnostics.withLock({ $0 }) { reporter.fail(diagnostic.message, at: location) }
  let actual = states.withLock { $0 }
  guard actual != expected else { return }
  var lines = ["The states are not the expected ones (expected \(expected.count), got \(actual.count)):"]
  for index in 0..<max(actual.count, expected.count) {
    switch (index < expected.count ? expected[index] : nil, index < actual.count ? actual[index] : nil) {
    case (let wanted?, let got?) where wanted == got:
      lines.append("  [\(index)] as expected")
    case (let wanted?, let got?):
      lines.append("  [\(index)] (- expected, + actual):")
      lines += (Diff.lines(from: wanted, to: got) ?? []).map { "    " + $0 }
    case (let wanted?, nil):
      lines.append("  [\(index)] expected \(Dump.line(wanted)), got no state")
    case (nil, let got?):
      lines.append("  [\(index)] not expected: \(Dump.line(got))")
    case (nil, nil):
      break
    }
  }
  reporter.fail(lines.joined(separator: "\n"), at: location)
}
