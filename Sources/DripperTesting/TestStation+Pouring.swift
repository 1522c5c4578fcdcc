import Dripper

extension TestStation {
  // MARK: - Pouring

  /// Pours an action and checks the state it leaves: the closure changes a copy of the state
  /// before the action into what the test expects after it. Without a closure, the action must
  /// not change the state; with one, it must (an action that changes nothing is asserted without
  /// a closure, as in TCA).
  ///
  /// ```swift
  /// await station.pour(.increase) { $0.count = 1 }
  /// ```
  ///
  /// The closure runs with the Station's ``dependencies``, so a `@Dependency` it reads (a
  /// generated id, the date) is the one the feature saw.
  ///
  /// It returns once the effects the action started have started, as TCA's `send` does: each has
  /// run until it waits for something (a clock, a stream, an answer), so that a test clock
  /// advanced next finds them asleep on it.
  ///
  /// - Returns: A task to wait for the action's effects with, or to cancel them.
  @discardableResult
  public nonisolated(nonsending) func pour(
    _ action: Action,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    progress.withLock { $0.skippedInFlight = false }
    reportDiagnostics(at: location)
    defer { reportDiagnostics(at: location) }
    handleUnreceived(before: "pouring \(Dump.line(action))", at: location)
    if isDismissed {
      reporter.fail(
        "Can't pour \(Dump.line(action)): the feature dismissed itself, and takes no more actions.",
        at: location)
      return TestStationTask(task: nil, testStation: self)
    }
    let task = station.pour(.poured(action))
    await station.reducePending()
    await letEffectsStart()
    let (asserted, expected) = progress.withLock { ($0.asserted, $0.expected) }
    let reductions = log.reductions(from: asserted)
    guard let index = reductions.firstIndex(where: { !$0.wasReceived }) else {
      reporter.fail("The Station did not reduce \(Dump.line(action)).", at: location)
      return TestStationTask(task: task, testStation: self)
    }
    // Effects may have poured between the last assertion and this action: account for them.
    let before = index == 0 ? expected : reductions[index - 1].snapshot
    check(
      reductions[index].snapshot, after: "pouring \(Dump.line(action))", from: before, expectation,
      at: location)
    progress.withLock { $0.asserted = asserted + index + 1 }
    return TestStationTask(task: task, testStation: self)
  }

  /// Pours the action of `actionCase` with `payload`, and checks the state it leaves: TCA's
  /// `store.send(\.login.view.email, "x")`.
  ///
  /// ```swift
  /// await station.pour(CasePath.rows[id: 1].rename, "Milk") {
  ///   $0.rows[id: 1]?.name = "Milk"
  /// }
  /// ```
  ///
  /// - Returns: A task to wait for the action's effects with, or to cancel them.
  @discardableResult
  public nonisolated(nonsending) func pour<Payload>(
    _ actionCase: CasePath<Action, Payload>,
    _ payload: Payload,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    await pour(
      actionCase.embed(payload), assert: expectation, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Pours the action a key path names with `payload`, and checks the state it leaves: TCA's
  /// `store.send(\.path[id: 0].detail.rename, "Milk")`, the key path into the action's case paths
  /// (see `CaseKeyPath`).
  ///
  /// ```swift
  /// await station.pour(\.rows[id: 1].rename, "Milk") { $0.rows[id: 1]?.name = "Milk" }
  /// ```
  @discardableResult
  public nonisolated(nonsending) func pour<Payload>(
    _ actionCase: CaseKeyPath<Action, Payload>,
    _ payload: Payload,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask where Action: CasePathable {
    await pour(
      CasePath(actionCase), payload, assert: expectation, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Pours the action a key path names, a case without a payload: TCA's
  /// `store.send(\.view.saveButtonTapped)`.
  @discardableResult
  public nonisolated(nonsending) func pour(
    _ actionCase: CaseKeyPath<Action, Void>,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask where Action: CasePathable {
    await pour(
      CasePath(actionCase), (), assert: expectation, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Checks the state without pouring: the closure changes a copy of the state into what the test
  /// expects it to be now. TCA's `store.assert`.
  ///
  /// ```swift
  /// station.exhaustivity = .off
  /// await station.pour(.login)
  /// await station.assert { $0.isLoggingIn = true }
  /// ```
  ///
  /// The state is the one after the actions the test has accounted for; in non-exhaustive mode
  /// the actions received since are accounted for first, so it is the latest state. A closure that
  /// changes nothing passes.
  public nonisolated(nonsending) func assert(
    _ expectation: (inout State) throws -> Void,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await station.reducePending()
    await letEffectsStart()
    reportDiagnostics(at: location)
    if exhaustivity != .on, log.count > 0 { skip(through: log.count - 1, showing: showsSkipped) }
    let current = progress.withLock { $0.expected }
    withoutActuallyEscaping(expectation) { expectation in
      check(current, after: "the assertion", from: current, expectation, mustChange: false, at: location)
    }
  }

  // MARK: - Receiving

  /// Waits for an effect to pour `expected`, and checks the state it leaves.
  ///
  /// ```swift
  /// await station.receive(.decrease) { $0.count = 0 }
  /// ```
  ///
  /// Received actions come in the order effects poured them. In non-exhaustive mode, actions
  /// received before a matching one are skipped. A failure lists the actions received, with a diff
  /// of the expected action against the closest of them.
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
  public nonisolated(nonsending) func receive(
    _ expected: Action,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      Expected(description: Dump.line(expected), value: expected, matches: { $0 == expected }),
      timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to pour the action in `actionCase` with `payload`, and checks the state
  /// it leaves: for actions that are not `Equatable` whose payload is. TCA's
  /// `receive(\.results[id: 2].favoriteResponse, true)`.
  ///
  /// ```swift
  /// await station.receive(CasePath.rows[id: 2].favoriteResponse, true) {
  ///   $0.rows[id: 2]?.isFavorite = true
  /// }
  /// ```
  public nonisolated(nonsending) func receive<Payload: Equatable>(
    _ actionCase: CasePath<Action, Payload>,
    _ payload: Payload,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let expected = actionCase.embed(payload)
    await receive(
      Expected(
        description: Dump.line(expected), value: expected, matches: { actionCase.extract($0) == payload }),
      timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to pour an action in `actionCase`, whatever its payload, and checks the
  /// state it leaves: for actions that are not `Equatable`.
  ///
  /// ```swift
  /// await station.receive(.loaded) { $0.items = [milk] }
  /// ```
  public nonisolated(nonsending) func receive<Payload>(
    _ actionCase: CasePath<Action, Payload>,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      Expected(description: "an action of its case", value: nil, matches: { actionCase.extract($0) != nil }),
      timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to pour the action a key path names with `payload`, and checks the state
  /// it leaves: TCA's `receive(\.rows[id: 2].favoriteResponse, true)` (see `CaseKeyPath`).
  public nonisolated(nonsending) func receive<Payload: Equatable>(
    _ actionCase: CaseKeyPath<Action, Payload>,
    _ payload: Payload,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async where Action: CasePathable {
    await receive(
      CasePath(actionCase), payload, timeout: timeout, assert: expectation, fileID: fileID,
      filePath: filePath,
      line: line, column: column)
  }

  /// Waits for an effect to pour an action in the case a key path names, whatever its payload:
  /// TCA's `await store.receive(\.recordingMemo.delegate.didFinish.success)`.
  ///
  /// ```swift
  /// await station.receive(\.loginResponse.success) { $0.isLoginRequestInFlight = false }
  /// ```
  public nonisolated(nonsending) func receive<Payload>(
    _ actionCase: CaseKeyPath<Action, Payload>,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async where Action: CasePathable {
    await receive(
      CasePath(actionCase), timeout: timeout, assert: expectation, fileID: fileID, filePath: filePath,
      line: line, column: column)
  }

  /// Waits for an effect to pour an action that satisfies `isExpected`, and checks the state.
  public nonisolated(nonsending) func receive(
    where isExpected: @escaping (Action) -> Bool,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      Expected(description: "an action that matches", value: nil, matches: isExpected),
      timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// What a `receive` waits for: a description, the action itself when the test gave one (to diff
  /// against what came), and the test.
  struct Expected {
    let description: String
    let value: Action?
    let matches: (Action) -> Bool
  }

  nonisolated(nonsending) func receive(
    _ expected: Expected, timeout: Duration?, assert expectation: ((inout State) throws -> Void)?,
    at location: SourceLocation
  ) async {
    let timeout = resolvedTimeout(timeout)
    reportDiagnostics(at: location)
    defer { reportDiagnostics(at: location) }
    let isExhaustive = exhaustivity == .on
    let deadline = ContinuousClock.now.advanced(by: timeout)
    var skipped: [Action] = []
    while true {
      let (asserted, before) = progress.withLock { ($0.asserted, $0.expected) }
      if asserted < log.count {
        let reduction = log[asserted]
        if expected.matches(reduction.action) {
          check(
            reduction.snapshot, after: "receiving \(Dump.line(reduction.action))", from: before, expectation,
            at: location)
          progress.withLock { $0.asserted = asserted + 1 }
          // The effects the action started, and the one that poured it, run until they wait.
          return await letEffectsStart()
        }
        if isExhaustive {
          let received = log.reductions(from: asserted).map(\.action)
          reporter.fail(
            "Expected to receive \(expected.description), but received \(Dump.line(reduction.action))."
              + Self.receivedReport(received, expected: expected.value), at: location)
          skip(through: asserted, showing: false)
          return
        }
        skipped.append(reduction.action)
        skip(through: asserted, showing: showsSkipped)
        continue
      }
      // Nothing to look at yet. If every effect waits on a test clock (or none is left), nothing
      // can come until the test moves time; otherwise wait, within the timeout.
      if station.effectsWaitOnlyForTime, log.count == asserted {
        reporter.fail(
          "Expected to receive \(expected.description), but no effect is running that could pour it"
            + " (an effect asleep on a TestClock waits for it to be advanced)."
            + Self.receivedReport(skipped, expected: expected.value), at: location)
        return
      }
      guard ContinuousClock.now < deadline else {
        reporter.fail(
          "Expected to receive \(expected.description), but nothing was received within \(timeout)."
            + Self.receivedReport(skipped, expected: expected.value), at: location)
        return
      }
      await waitForReductionOrSettling(after: asserted, until: deadline)
    }
  }

  /// The actions received instead of the expected one, and a diff of the expected action against
  /// the closest of them (the one whose rendering differs in the fewest lines); empty when none
  /// was received.
  static func receivedReport(_ received: [Action], expected: Action?) -> String {
    guard !received.isEmpty else { return "" }
    var text = "\nReceived, not asserted:\n" + received.map { "  " + Dump.line($0) }.joined(separator: "\n")
    guard let expected else { return text }
    let diffs = received.compactMap { action in
      Diff.lines(from: expected, to: action).map { (action: action, lines: $0) }
    }
    guard let closest = diffs.min(by: { changedLines($0.lines) < changedLines($1.lines) }) else {
      return text
    }
    text += "\nThe closest (- expected, + received):\n" + closest.lines.joined(separator: "\n")
    return text
  }

  private static func changedLines(_ lines: [String]) -> Int {
    lines.count { $0.hasPrefix("-") || $0.hasPrefix("+") }
  }
}

extension TestStation where Action: ViewAction {
  /// Pours a view's action, `.view(action)`, and checks the state it leaves, as
  /// ``pour(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)`` does.
  ///
  /// ```swift
  /// await station.pour(.loginButtonTapped) { $0.isLoggingIn = true }   // TCA: send(.view(.loginButtonTapped))
  /// ```
  @discardableResult
  public nonisolated(nonsending) func pour(
    _ action: Action.ViewAction,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    await pour(
      .view(action), assert: expectation, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
