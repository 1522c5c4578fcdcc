import Dripper

/// A pour of a ``TestStation``: wait for its effects, or cancel them.
public struct TestStationTask: Sendable {
  /// The pour; `nil` for an action that was not poured (the feature had dismissed itself).
  let task: PourTask?
  let defaultTimeout: Duration
  let onTimeout: @Sendable (Duration, SourceLocation) -> Void
  let reportDiagnostics: @Sendable (SourceLocation) -> Void

  init<State, Action>(task: PourTask?, testStation: TestStation<State, Action>) {
    self.task = task
    self.defaultTimeout = testStation.timeout
    self.onTimeout = { [weak testStation] timeout, location in
      testStation?.failEffectsStillRunning(after: timeout, at: location)
    }
    self.reportDiagnostics = { [weak testStation] location in testStation?.reportDiagnostics(at: location) }
  }

  /// Waits for the effects of the pour to finish; fails if they have not after `timeout` (the
  /// ``TestStation/timeout`` of its TestStation when nil).
  public nonisolated(nonsending) func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let timeout = timeout ?? defaultTimeout
    guard let task else { return }
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    // Reported before the wait is cancelled, which cancels the pour's effects.
    _ = await completes(
      within: timeout, ifNot: { onTimeout(timeout, location) }, { await task.finish() })
    reportDiagnostics(location)
  }

  /// Cancels the effects of the pour, and waits until they have ended, as TCA's
  /// `await task.cancel()` does.
  ///
  /// ```swift
  /// let timer = await station.pour(.startTimer)
  /// await clock.advance(by: .seconds(1))
  /// await station.receive(.tick) { $0.ticks = 1 }
  /// await timer.cancel()
  /// ```
  ///
  /// An effect that ignores its cancellation is waited for up to the TestStation's
  /// ``TestStation/timeout``; cancelled, it is not reported as still running either way.
  public nonisolated(nonsending) func cancel() async {
    guard let task else { return }
    task.cancel()
    _ = await completes(within: defaultTimeout) { await task.finish() }
  }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { task?.isCancelled ?? false }
}
