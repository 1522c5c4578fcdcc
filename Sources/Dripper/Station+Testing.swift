/// What the test harness (`DripperTesting`, in this package) needs of a Station, and nothing more.
extension Station {
  /// Returns once every action poured before the call has been reduced.
  package func reducePending() async {
    _ = await state
  }

  /// Whether no effect is running: every one has finished, or sleeps on a test clock.
  package var effectsSettled: Bool {
    rootHandler.map { $0.effects.snapshot.running == 0 } ?? true
  }

  /// Whether no effect is running, queued, or held.
  package var effectsIdle: Bool {
    rootHandler.map { $0.effects.snapshot.isIdle } ?? true
  }

  /// Waits until no effect is running (see ``effectsSettled``); returns early if cancelled.
  package func waitForEffectsToSettle() async {
    await rootHandler?.effects.wait(until: .settled)
  }

  /// Waits until no effect is running, queued or held; returns early if cancelled.
  package func waitForEffectsToEnd() async {
    await rootHandler?.effects.wait(until: .idle)
  }

  /// Where the effects still running were written, as `File.swift:line`.
  package var runningEffects: [String] {
    rootHandler?.effects.liveOrigins.map(\.description) ?? []
  }

  /// Cancels every effect running now.
  package func cancelEffects() {
    rootHandler?.effects.cancelAll()
  }
}

extension DependencyValues {
  /// Test dependencies with fresh caches, whose diagnostics go to `reporter`.
  package static func test(reporting reporter: @escaping @Sendable (Diagnostic) -> Void) -> DependencyValues {
    var values = DependencyValues(context: .test)
    values.reporter = reporter
    return values
  }
}
