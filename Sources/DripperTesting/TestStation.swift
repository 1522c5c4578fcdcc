public import Dripper
import Synchronization

/// A Station for tests: it checks that each action changes the state exactly as the test says,
/// that the actions effects pour are the ones the test expects, and that nothing is left running.
///
/// ```swift
/// @Test func decreasingLater() async {
///   let clock = TestClock()
///   let station = TestStation(initialState: Counter.State()) {
///     Counter()
///   } withDependencies: {
///     $0.clock = clock
///   }
///   await station.pour(.increase) { $0.count = 1 }
///   await station.pour(.decreaseLater)              // no change to assert: no closure
///   await clock.advance(by: .seconds(1))
///   await station.receive(.decrease) { $0.count = 0 }
///   await station.finish()
/// }
/// ```
///
/// By default it is exhaustive: every state change must be asserted, every action an effect pours
/// received, every effect finished by the end. Set ``exhaustivity`` to `.off` to check only what the
/// test asserts. Failures are reported through Swift Testing or XCTest, whichever runs the test,
/// at the line of the call that failed, with a diff of the expected and actual states.
///
/// Dependencies resolve to their test values, and diagnostics (an effect's uncaught error, an
/// unimplemented dependency, an action for a child that is gone) are test failures.
public final class TestStation<State: Equatable & Sendable, Action: Sendable>: Sendable {
  private let station: Station<State, TestAction<Action>>
  private let log: ReductionLog<State, Action>
  private let reporter: FailureReporter
  private let origin: SourceLocation
  private let progress: Lock<Progress>
  private let pendingDiagnostics = Lock<[Diagnostic]>([])

  private struct Progress {
    /// The state as the test last asserted it.
    var expected: State
    /// How many reductions the test has accounted for.
    var asserted = 0
    var exhaustivity = Exhaustivity.on
    var timeout = Duration.seconds(5)
    var isFinished = false
    /// Where the last call that pours or receives was, for failures found later.
    var lastCall: SourceLocation
  }

  /// Starts a feature for a test.
  ///
  /// - Parameters:
  ///   - initialState: The state the feature starts in.
  ///   - dripper: The feature's logic.
  ///   - prepareDependencies: Changes the dependencies, which start from their test values.
  ///   - reporter: Where failures go: the running test framework by default.
  ///   - fileID: Where the `TestStation` is made: failures found when it goes away are reported
  ///     there.
  ///   - filePath: The file where it is made.
  ///   - line: The line where it is made.
  ///   - column: The column where it is made.
  public init<D: Dripper<State, Action>>(
    initialState: State,
    @DripperBuilder<State, Action> dripper: () -> D,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    reporter: FailureReporter = .automatic,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let log = ReductionLog<State, Action>()
    let origin = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let base = dripper()
    let diagnostics = DiagnosticForwarder()
    self.log = log
    self.reporter = reporter
    self.origin = origin
    self.progress = Lock(Progress(expected: initialState, lastCall: origin))
    self.station = Station(initialState: initialState) {
      RecordingDripper(base: base, log: log)
    } withDependencies: {
      $0 = .test(reporting: diagnostics.forward)
      prepareDependencies(&$0)
    }
    // Diagnostics arrive on the Station's tasks, where no test is current: they are reported from
    // the test's next call instead.
    diagnostics.connect { [weak self] diagnostic in
      self?.pendingDiagnostics.withLock { $0.append(diagnostic) }
    }
  }

  deinit {
    reportDiagnostics(at: origin)
    let (isFinished, exhaustivity) = progress.withLock { ($0.isFinished, $0.exhaustivity) }
    guard !isFinished, exhaustivity == .on else { return }
    checkNothingIsLeft(at: origin, timedOut: nil)
    station.cancelEffects()
  }

  // MARK: - Settings and state

  /// How much the test must assert: `.on` (everything) by default.
  public var exhaustivity: Exhaustivity {
    get { progress.withLock { $0.exhaustivity } }
    set { progress.withLock { $0.exhaustivity = newValue } }
  }

  /// How long the `receive` calls and ``finish(timeout:fileID:filePath:line:column:)`` wait for
  /// effects that are still running, unless a call gives its own: 5 seconds by default.
  ///
  /// The wait ends as soon as the action arrives or no effect runs, so a passing test never waits
  /// it out: it is generous so that a correct test does not fail on a loaded machine (sanitizers,
  /// tests run in parallel). Effects that sleep on a `TestClock` are not waited for at all.
  ///
  /// ```swift
  /// station.timeout = .milliseconds(200)
  /// ```
  public var timeout: Duration {
    get { progress.withLock { $0.timeout } }
    set { progress.withLock { $0.timeout = newValue } }
  }

  /// The state as the test last asserted it (in non-exhaustive mode, as it actually is).
  public var state: State { progress.withLock { $0.expected } }

  // MARK: - Pouring

  /// Pours an action and checks the state it leaves: the closure changes a copy of the state
  /// before the action into what the test expects after it. Without a closure, the action must
  /// not change the state.
  ///
  /// ```swift
  /// await station.pour(.increase) { $0.count = 1 }
  /// ```
  ///
  /// - Returns: A task to wait for the action's effects with, or to cancel them.
  @discardableResult
  public func pour(
    _ action: Action,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    progress.withLock { $0.lastCall = location }
    reportDiagnostics(at: location)
    defer { reportDiagnostics(at: location) }
    handleUnreceived(before: "pouring \(Dump.line(action))", at: location)
    let task = station.pour(.poured(action))
    await station.reducePending()
    let (asserted, expected) = progress.withLock { ($0.asserted, $0.expected) }
    let reductions = log.reductions(from: asserted)
    guard let index = reductions.firstIndex(where: { !$0.wasReceived }) else {
      reporter.fail("The Station did not reduce \(Dump.line(action)).", at: location)
      return TestStationTask(task: task, testStation: self)
    }
    // Effects may have poured between the last assertion and this action: account for them.
    let before = index == 0 ? expected : reductions[index - 1].state
    check(
      reductions[index].state, after: "pouring \(Dump.line(action))", from: before, expectation, at: location)
    progress.withLock { $0.asserted = asserted + index + 1 }
    return TestStationTask(task: task, testStation: self)
  }

  // MARK: - Receiving

  /// Waits for an effect to pour `expected`, and checks the state it leaves.
  ///
  /// ```swift
  /// await station.receive(.decrease) { $0.count = 0 }
  /// ```
  ///
  /// Received actions come in the order effects poured them. In non-exhaustive mode, actions
  /// received before a matching one are skipped.
  ///
  /// - Parameters:
  ///   - expected: The action an effect should pour next.
  ///   - timeout: How long to wait for an effect still running to pour it: ``timeout`` when nil.
  ///     If every effect has finished or waits on a test clock, nothing can arrive, and the
  ///     failure is immediate.
  ///   - expectation: Changes a copy of the state before the action into the state expected after
  ///     it; without it, the action must not change the state.
  ///   - fileID: Where failures are reported: the call's file, by default.
  ///   - filePath: The call's file.
  ///   - line: The call's line.
  ///   - column: The call's column.
  public func receive(
    _ expected: Action,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      Dump.line(expected), matching: { $0 == expected }, timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to pour an action in `actionCase`, whatever its payload, and checks the
  /// state it leaves: for actions that are not `Equatable`.
  ///
  /// ```swift
  /// await station.receive(.loaded) { $0.items = [milk] }
  /// ```
  public func receive<Payload>(
    _ actionCase: CasePath<Action, Payload>,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      "an action of its case", matching: { actionCase.extract($0) != nil }, timeout: timeout,
      assert: expectation, at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to pour an action that satisfies `isExpected`, and checks the state.
  public func receive(
    where isExpected: @escaping (Action) -> Bool,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      "an action that matches", matching: isExpected, timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  private func receive(
    _ description: String, matching isExpected: (Action) -> Bool, timeout: Duration?,
    assert expectation: ((inout State) throws -> Void)?, at location: SourceLocation
  ) async {
    let timeout = resolvedTimeout(timeout, at: location)
    reportDiagnostics(at: location)
    defer { reportDiagnostics(at: location) }
    let isExhaustive = exhaustivity == .on
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
      let (asserted, expected) = progress.withLock { ($0.asserted, $0.expected) }
      if asserted < log.count {
        let reduction = log[asserted]
        if isExpected(reduction.action) {
          check(
            reduction.state, after: "receiving \(Dump.line(reduction.action))", from: expected, expectation,
            at: location)
          progress.withLock { $0.asserted = asserted + 1 }
          return
        }
        if isExhaustive {
          reporter.fail(
            "Expected to receive \(description), but received \(Dump.line(reduction.action)).", at: location)
          skip(through: asserted, showing: false)
          return
        }
        skip(through: asserted, showing: showsSkipped)
        continue
      }
      // Nothing to look at yet. If every effect waits on a test clock (or none is left), nothing
      // can come until the test moves time; otherwise wait, within the timeout.
      if station.effectsWaitOnlyForTime, log.count == asserted {
        reporter.fail(
          "Expected to receive \(description), but no effect is running that could pour it"
            + " (an effect asleep on a TestClock waits for it to be advanced).", at: location)
        return
      }
      guard ContinuousClock.now < deadline else {
        reporter.fail(
          "Expected to receive \(description), but nothing was received within \(timeout).", at: location)
        return
      }
      await waitForReductionOrSettling(after: asserted, until: deadline)
    }
  }

  // MARK: - Finishing

  /// Waits for every effect to finish, then checks that every received action was asserted and
  /// that no effect is still running.
  ///
  /// Effects that sleep on a `TestClock` are still running: advance the clock, cancel them, or call
  /// ``skipInFlightEffects()``.
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let timeout = resolvedTimeout(timeout, at: location)
    defer { reportDiagnostics(at: location) }
    let deadline = ContinuousClock.now.advanced(by: timeout)
    // Wait until the effects end, or every one left waits on a test clock.
    while !station.effectsIdle, !station.effectsWaitOnlyForTime, ContinuousClock.now < deadline {
      await waitForSettling(until: deadline, orEnd: true)
    }
    await station.reducePending()
    let timedOut = station.effectsIdle || station.effectsWaitOnlyForTime ? nil : timeout
    if exhaustivity == .on {
      checkNothingIsLeft(at: location, timedOut: timedOut)
    } else {
      skipReceivedActions()
    }
    station.cancelEffects()
    progress.withLock { $0.isFinished = true }
  }

  /// Accepts the actions received so far without asserting them; the expected state becomes the
  /// actual one.
  public func skipReceivedActions() {
    let asserted = progress.withLock { $0.asserted }
    let count = log.count
    if count > asserted { skip(through: count - 1, showing: showsSkipped) }
  }

  /// Cancels the effects still running and stops expecting them to finish.
  public func skipInFlightEffects() {
    if showsSkipped, !station.runningEffects.isEmpty {
      print(
        "Skipped \(effectsText(station.runningEffects)):\n"
          + station.runningEffects.map { "  \($0)" }.joined(separator: "\n"))
    }
    station.cancelEffects()
  }

  // MARK: - Checking

  private var showsSkipped: Bool { exhaustivity == .off(showSkippedAssertions: true) }

  /// Checks a state against the test's expectation, and moves the expected state to it.
  private func check(
    _ actual: State, after event: String, from before: State, _ expectation: ((inout State) throws -> Void)?,
    at location: SourceLocation
  ) {
    var expected = before
    do {
      try expectation?(&expected)
    } catch {
      reporter.fail("The assertion after \(event) threw \(error).", at: location)
      progress.withLock { $0.expected = actual }
      return
    }
    defer { progress.withLock { $0.expected = actual } }
    guard expected != actual else { return }
    if exhaustivity != .on {
      // Check only what the test asserted: its changes applied to the actual state must leave it
      // as it is.
      var asserted = actual
      try? expectation?(&asserted)
      guard asserted != actual else {
        if showsSkipped, let diff = Diff.text(from: expected, to: actual) {
          print("Skipped changes not asserted after \(event):\n\(diff)")
        }
        return
      }
      expected = asserted
    }
    let diff = Diff.text(from: expected, to: actual) ?? "(the states differ but render the same)"
    let headline =
      expectation == nil
      ? "The state changed after \(event), but no change was expected"
      : "The state after \(event) is not what was expected"
    reporter.fail("\(headline) (- expected, + actual):\n\(diff)", at: location)
  }

  /// In exhaustive mode, fails for received actions the test did not assert before a new pour;
  /// then skips them.
  private func handleUnreceived(before event: String, at location: SourceLocation) {
    let asserted = progress.withLock { $0.asserted }
    let pending = log.reductions(from: asserted)
    guard !pending.isEmpty else { return }
    if exhaustivity == .on {
      let received = pending.count == 1 ? "1 received action" : "\(pending.count) received actions"
      reporter.fail(
        "\(received) must be asserted before \(event):\n"
          + pending.map { "  " + Dump.line($0.action) }.joined(separator: "\n"), at: location)
    }
    skip(through: asserted + pending.count - 1, showing: showsSkipped)
  }

  /// Accounts for the reductions up to `last`, the expected state becoming the state they left.
  private func skip(through last: Int, showing: Bool) {
    let asserted = progress.withLock { $0.asserted }
    guard last >= asserted else { return }
    let skipped = (asserted...last).map { log[$0] }
    if showing {
      print("Skipped received " + skipped.map { Dump.line($0.action) }.joined(separator: ", "))
    }
    progress.withLock { progress in
      progress.asserted = last + 1
      progress.expected = skipped.last!.state
    }
  }

  /// At the end: fails for received actions not asserted and for effects still running.
  private func checkNothingIsLeft(at location: SourceLocation, timedOut: Duration?) {
    let asserted = progress.withLock { $0.asserted }
    let unreceived = log.reductions(from: asserted)
    if !unreceived.isEmpty {
      reporter.fail(
        "\(actionsText(unreceived.count)) received but not asserted:\n"
          + unreceived.map { "  " + Dump.line($0.action) }.joined(separator: "\n"), at: location)
      skip(through: asserted + unreceived.count - 1, showing: false)
    }
    let running = station.runningEffects
    if !running.isEmpty {
      let waited = timedOut.map { ", after waiting \($0)" } ?? ""
      reporter.fail(
        "\(effectsText(running)) still running\(waited):\n"
          + running.map { "  started at \($0)" }.joined(separator: "\n")
          + "\nAwait them with finish(), advance the test clock they sleep on, cancel them, or call "
          + "skipInFlightEffects().", at: location)
    }
  }

  private func actionsText(_ count: Int) -> String {
    count == 1 ? "1 action was" : "\(count) actions were"
  }

  private func effectsText(_ running: [String]) -> String {
    running.count == 1 ? "1 effect is" : "\(running.count) effects are"
  }

  // MARK: - Waiting

  private func waitForReductionOrSettling(after count: Int, until deadline: ContinuousClock.Instant) async {
    let settling = settlingWait(orEnd: false)
    await waitUntil(deadline) {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await self.log.waitForMore(than: count) }
        group.addTask { await settling() }
        _ = await group.next()
        group.cancelAll()
      }
    }
  }

  /// Waits until the effects settle — if they are settled now, until they have run and settled
  /// again — or, with `orEnd`, until they end, or `deadline`.
  private func waitForSettling(until deadline: ContinuousClock.Instant, orEnd: Bool) async {
    await waitUntil(deadline, settlingWait(orEnd: orEnd))
  }

  private func settlingWait(orEnd: Bool) -> @Sendable () async -> Void {
    let station = self.station
    let epoch = station.settlingEpoch
    let settled = station.effectsSettled
    return {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          if settled {
            await station.waitForEffectsToSettle(after: epoch)
          } else {
            await station.waitForEffectsToSettle()
          }
        }
        if orEnd { group.addTask { await station.waitForEffectsToEnd() } }
        _ = await group.next()
        group.cancelAll()
      }
    }
  }

  /// Runs `operation`, cancelling it at `deadline`.
  private func waitUntil(
    _ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async -> Void
  ) async {
    _ = await completes(within: ContinuousClock.now.duration(to: deadline), operation)
  }

  /// Notes the call at `location`, and returns how long it waits: `requested`, or ``timeout``.
  private func resolvedTimeout(_ requested: Duration?, at location: SourceLocation) -> Duration {
    progress.withLock { progress in
      progress.lastCall = location
      return requested ?? progress.timeout
    }
  }

  /// Reports the diagnostics the Station raised since the last call, at this call.
  func reportDiagnostics(at location: SourceLocation) {
    let diagnostics = pendingDiagnostics.withLock { pending in
      defer { pending.removeAll() }
      return pending
    }
    for diagnostic in diagnostics { reporter.fail(diagnostic.message, at: location) }
  }

  func failEffectsStillRunning(after timeout: Duration, at location: SourceLocation) {
    let running = station.runningEffects
    guard !running.isEmpty else { return }
    reporter.fail(
      "\(effectsText(running)) still running after waiting \(timeout):\n"
        + running.map { "  started at \($0)" }.joined(separator: "\n"), at: location)
  }
}

/// A pour of a ``TestStation``: wait for its effects, or cancel them.
public struct TestStationTask: Sendable {
  let task: PourTask
  let defaultTimeout: Duration
  let onTimeout: @Sendable (Duration, SourceLocation) -> Void
  let reportDiagnostics: @Sendable (SourceLocation) -> Void

  init<State, Action>(task: PourTask, testStation: TestStation<State, Action>) {
    self.task = task
    self.defaultTimeout = testStation.timeout
    self.onTimeout = { [weak testStation] timeout, location in
      testStation?.failEffectsStillRunning(after: timeout, at: location)
    }
    self.reportDiagnostics = { [weak testStation] location in testStation?.reportDiagnostics(at: location) }
  }

  /// Waits for the effects of the pour to finish; fails if they have not after `timeout` (the
  /// ``TestStation/timeout`` of its TestStation when nil).
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let timeout = timeout ?? defaultTimeout
    let task = self.task
    let finished = await completes(within: timeout) { await task.finish() }
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    if !finished { onTimeout(timeout, location) }
    reportDiagnostics(location)
  }

  /// Cancels the effects of the pour.
  public func cancel() { task.cancel() }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { task.isCancelled }
}

/// Forwards the Station's diagnostics to the test, once the `TestStation` that reports them exists.
final class DiagnosticForwarder: Sendable {
  private let target = Lock<(@Sendable (Diagnostic) -> Void)?>(nil)

  var forward: @Sendable (Diagnostic) -> Void {
    { [self] diagnostic in target.withLock { $0 }?(diagnostic) }
  }

  func connect(_ report: @escaping @Sendable (Diagnostic) -> Void) {
    target.withLock { $0 = report }
  }
}
