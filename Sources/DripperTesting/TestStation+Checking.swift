import Dripper

extension TestStation {
  var showsSkipped: Bool { exhaustivity == .off(showSkippedAssertions: true) }

  /// Checks a state against the test's expectation, and moves the expected state to it.
  ///
  /// As in TCA, an exhaustive test's expectation changes a copy of the state before the event into
  /// the state expected after it; a non-exhaustive test's changes a copy of the actual state after
  /// it, once, and passes if that leaves it as it is (with skipped assertions shown, it also runs
  /// on the state before, to show what the test did not assert). The expectation runs with the
  /// Station's dependencies. With `mustChange` (pours and receives), an exhaustive test's
  /// expectation must describe a change: a closure given for an action that changed nothing fails,
  /// as in TCA.
  ///
  /// Shared values (``Shared``) are compared as each step left them: the expectation runs in a view
  /// of the values before the event, where its writes go (never to the values themselves), and the
  /// values it leaves are compared with those after the event; the rest of the state is compared
  /// with each holder standing for its value.
  func check(
    _ actual: Snapshot<State>, after event: String, from before: Snapshot<State>,
    _ expectation: ((inout State) throws -> Void)?, mustChange: Bool = true, at location: SourceLocation
  ) {
    defer { progress.withLock { $0.expected = actual } }
    let dependencies = station.lendingSharedKeys(to: self.dependencies)
    // Runs the expectation on `state`, its shared values shown as in `shared`; returns them as the
    // expectation left them.
    let apply = { (state: inout State, shared: SharedSnapshot) throws -> SharedSnapshot in
      let view = SharedView(shared)
      try SharedView.with(view) {
        try withDependencies {
          $0 = dependencies
        } operation: {
          try expectation?(&state)
        }
      }
      return view.snapshot(over: shared)
    }
    let isExhaustive = exhaustivity == .on
    let start = isExhaustive ? before : actual
    var expected = start.state
    let expectedShared: SharedSnapshot
    do {
      expectedShared = try apply(&expected, start.shared.filling(from: actual.shared))
    } catch {
      reporter.fail("The assertion after \(event) threw \(error).", at: location)
      return
    }
    guard !Self.differ(expected, expectedShared, actual.state, actual.shared) else {
      let diff =
        Self.diff(from: Snapshot(state: expected, shared: expectedShared), to: actual)
        ?? "(the states differ but render the same)"
      let headline =
        expectation == nil
        ? "The state changed after \(event), but no change was expected"
        : "The state after \(event) is not what was expected"
      reporter.fail("\(headline) (- expected, + actual):\n\(diff)", at: location)
      return
    }
    if isExhaustive, mustChange, expectation != nil,
      !Self.differ(before.state, before.shared, actual.state, actual.shared)
    {
      reporter.fail(
        "Expected the state to change after \(event), but it did not: an action that changes "
          + "nothing is asserted without a closure.", at: location)
    }
    if !isExhaustive, showsSkipped {
      var asserted = before.state
      if let shared = try? apply(&asserted, before.shared.filling(from: actual.shared)),
        let diff = Self.diff(from: Snapshot(state: asserted, shared: shared), to: actual)
      {
        FailureReporter.show("Skipped changes not asserted after \(event):\n\(diff)")
      }
    }
  }

  /// Whether two states differ, each with its shared values as given.
  static func differ(
    _ first: State, _ firstShared: SharedSnapshot, _ second: State, _ secondShared: SharedSnapshot
  )
    -> Bool
  {
    if firstShared.isEmpty, secondShared.isEmpty { return first != second }
    let holders = SharedView(SharedSnapshot(), comparesHolders: true)
    return SharedView.with(holders) { first != second } || !firstShared.matches(secondShared)
  }

  /// The difference between two states as text, each rendered with its shared values as they were.
  static func diff(from old: Snapshot<State>, to new: Snapshot<State>) -> String? {
    guard !old.shared.isEmpty || !new.shared.isEmpty else { return Diff.text(from: old.state, to: new.state) }
    let oldLines = SharedView.with(SharedView(old.shared)) { Dump.lines(old.state) }
    let newLines = SharedView.with(SharedView(new.shared)) { Dump.lines(new.state) }
    var lines = Diff.lines(from: oldLines, to: newLines) ?? []
    // A shared value the state no longer shows (a holder that went) still differs: say so.
    if lines.isEmpty, !old.shared.matches(new.shared) {
      lines = Diff.lines(from: old.shared.lines, to: new.shared.lines) ?? []
    }
    return lines.isEmpty ? nil : lines.joined(separator: "\n")
  }

  /// In exhaustive mode, fails for received actions the test did not assert before a new pour;
  /// then skips them.
  func handleUnreceived(before event: String, at location: SourceLocation) {
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
  func skip(through last: Int, showing: Bool) {
    let asserted = progress.withLock { $0.asserted }
    guard last >= asserted else { return }
    let skipped = (asserted...last).map { log[$0] }
    if showing {
      FailureReporter.show("Skipped received " + skipped.map { Dump.line($0.action) }.joined(separator: ", "))
    }
    progress.withLock { progress in
      progress.asserted = last + 1
      progress.expected = skipped.last!.snapshot
    }
  }

  func actionsText(_ count: Int) -> String {
    count == 1 ? "1 action was" : "\(count) actions were"
  }

  func effectsText(_ running: [String]) -> String {
    running.count == 1 ? "1 effect is" : "\(running.count) effects are"
  }
}
