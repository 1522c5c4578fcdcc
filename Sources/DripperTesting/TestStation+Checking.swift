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
  func check(
    _ actual: State, after event: String, from before: State, _ expectation: ((inout State) throws -> Void)?,
    mustChange: Bool = true, at location: SourceLocation
  ) {
    defer { progress.withLock { $0.expected = actual } }
    let dependencies = self.dependencies
    let apply: (inout State) throws -> Void = { state in
      try withDependencies {
        $0 = dependencies
      } operation: {
        try expectation?(&state)
      }
    }
    let isExhaustive = exhaustivity == .on
    var expected = isExhaustive ? before : actual
    do {
      try apply(&expected)
    } catch {
      reporter.fail("The assertion after \(event) threw \(error).", at: location)
      return
    }
    guard expected != actual else {
      if isExhaustive, mustChange, expectation != nil, before == actual {
        reporter.fail(
          "Expected the state to change after \(event), but it did not: an action that changes "
            + "nothing is asserted without a closure.", at: location)
      }
      if !isExhaustive, showsSkipped {
        var asserted = before
        if (try? apply(&asserted)) != nil, let diff = Diff.text(from: asserted, to: actual) {
          print("Skipped changes not asserted after \(event):\n\(diff)")
        }
      }
      return
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
      print("Skipped received " + skipped.map { Dump.line($0.action) }.joined(separator: ", "))
    }
    progress.withLock { progress in
      progress.asserted = last + 1
      progress.expected = skipped.last!.state
    }
  }

  func actionsText(_ count: Int) -> String {
    count == 1 ? "1 action was" : "\(count) actions were"
  }

  func effectsText(_ running: [String]) -> String {
    running.count == 1 ? "1 effect is" : "\(running.count) effects are"
  }
}
