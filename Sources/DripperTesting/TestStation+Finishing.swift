import Dripper

extension TestStation {
  /// Waits for every effect to finish, then checks that every received action was asserted and
  /// that no effect is still running. Cancelled effects are not running, as in TCA; those still
  /// winding down are waited for, within the ``timeout``, so that what they report is reported
  /// here.
  ///
  /// Effects that sleep on a `TestClock` are still running: advance the clock, cancel them, or call
  /// ``skipInFlightEffects(strict:fileID:filePath:line:column:)``.
  public nonisolated(nonsending) func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let timeout = resolvedTimeout(timeout)
    defer { reportDiagnostics(at: location) }
    let deadline = ContinuousClock.now.advanced(by: timeout)
    // Wait until the effects end, or every one left waits on a test clock.
    while !station.effectsIdle, !station.effectsWaitOnlyForTime, ContinuousClock.now < deadline {
      await waitForSettling(until: deadline, orEnd: true)
    }
    // Cancelled effects still winding down are not running, but what they do until they end (a
    // late pour dropped with a diagnostic) belongs to this test: wait for them, within the timeout.
    if !station.effectsIdle, station.runningEffects.isEmpty, ContinuousClock.now < deadline {
      let station = self.station
      _ = await completes(within: ContinuousClock.now.duration(to: deadline)) {
        await station.waitForEffectsToEnd()
      }
    }
    await station.reducePending()
    await letEffectsStart()
    let timedOut = station.effectsIdle || station.effectsWaitOnlyForTime ? nil : timeout
    if exhaustivity == .on {
      checkNothingIsLeft(at: location, timedOut: timedOut)
    } else {
      let count = log.count
      if count > progress.withLock({ $0.asserted }) { skip(through: count - 1, showing: showsSkipped) }
    }
    station.cancelEffects()
    progress.withLock { $0.isFinished = true }
  }

  /// Accepts the actions received so far without asserting them; the expected state becomes the
  /// actual one. With `strict` (the default, as in TCA), it fails when there was nothing to skip.
  ///
  /// ```swift
  /// await station.pour(.refresh)
  /// await station.skipReceivedActions()
  /// ```
  public nonisolated(nonsending) func skipReceivedActions(
    strict: Bool = true,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await station.reducePending()
    await letEffectsStart()
    reportDiagnostics(at: location)
    let asserted = progress.withLock { $0.asserted }
    let count = log.count
    guard count > asserted else {
      if strict { reporter.fail("There were no received actions to skip.", at: location) }
      return
    }
    skip(through: count - 1, showing: showsSkipped)
  }

  /// Cancels the effects still running, waits for the cancellation to land, and stops expecting
  /// them to finish: the test then ends clean, with or without a ``finish(timeout:fileID:filePath:line:column:)``
  /// after it. With `strict` (the default, as in TCA), it fails when no effect was running.
  ///
  /// ```swift
  /// await station.pour(.startTimer)
  /// await clock.advance(by: .seconds(1))
  /// await station.receive(.tick) { $0.ticks = 1 }
  /// await station.skipInFlightEffects()
  /// ```
  ///
  /// An effect that ignores cancellation is waited for up to ``timeout``, then left to wind down
  /// without failing the test.
  public nonisolated(nonsending) func skipInFlightEffects(
    strict: Bool = true,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let timeout = resolvedTimeout(nil)
    let running = station.runningEffects
    guard !running.isEmpty else {
      if strict { reporter.fail("There were no in-flight effects to skip.", at: location) }
      return
    }
    if showsSkipped {
      FailureReporter.show(
        "Skipped \(effectsText(running)):\n" + running.map { "  \($0)" }.joined(separator: "\n"))
    }
    progress.withLock { $0.skippedInFlight = true }
    station.cancelEffects()
    let station = self.station
    _ = await completes(within: timeout) { await station.waitForEffectsToEnd() }
    await station.reducePending()
    reportDiagnostics(at: location)
  }

  /// At the end: fails for received actions not asserted and for effects still running.
  func checkNothingIsLeft(at location: SourceLocation, timedOut: Duration?) {
    let (asserted, skippedInFlight) = progress.withLock { ($0.asserted, $0.skippedInFlight) }
    let unreceived = log.reductions(from: asserted)
    if !unreceived.isEmpty {
      reporter.fail(
        "\(actionsText(unreceived.count)) received but not asserted:\n"
          + unreceived.map { "  " + Dump.line($0.action) }.joined(separator: "\n"), at: location)
      skip(through: asserted + unreceived.count - 1, showing: false)
    }
    let running = station.runningEffects
    if !running.isEmpty, !skippedInFlight {
      let waited = timedOut.map { ", after waiting \($0)" } ?? ""
      reporter.fail(
        "\(effectsText(running)) still running\(waited):\n"
          + running.map { "  started at \($0)" }.joined(separator: "\n")
          + "\nAwait them with finish(), advance the test clock they sleep on, cancel them, or call "
          + "skipInFlightEffects().", at: location)
    }
  }

  func failEffectsStillRunning(after timeout: Duration, at location: SourceLocation) {
    let running = station.runningEffects
    guard !running.isEmpty else { return }
    reporter.fail(
      "\(effectsText(running)) still running after waiting \(timeout):\n"
        + running.map { "  started at \($0)" }.joined(separator: "\n"), at: location)
  }

  // MARK: - Waiting

  /// Waits until every task of the effects has run until it waits for something: what each step
  /// does before it returns, so that nothing the test does next races an effect that has not
  /// reached its first wait, or its end. Bounded by ``timeout``, for an effect that never stops
  /// running (a busy loop), which the end of the test then reports.
  nonisolated(nonsending) func letEffectsStart() async {
    guard !station.effectsQuiet else { return }
    let station = self.station
    _ = await completes(within: timeout) { await station.waitForEffectsToBeQuiet() }
  }

  nonisolated(nonsending) func waitForReductionOrSettling(
    after count: Int, until deadline: ContinuousClock.Instant
  ) async {
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
  nonisolated(nonsending) func waitForSettling(until deadline: ContinuousClock.Instant, orEnd: Bool) async {
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
  private nonisolated(nonsending) func waitUntil(
    _ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async -> Void
  ) async {
    _ = await completes(within: ContinuousClock.now.duration(to: deadline), operation)
  }

  /// How long a call waits: `requested`, or ``timeout``.
  func resolvedTimeout(_ requested: Duration?) -> Duration {
    requested ?? timeout
  }
}
