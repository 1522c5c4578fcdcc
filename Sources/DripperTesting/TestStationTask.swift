import Dripper

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
