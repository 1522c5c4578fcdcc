/// What the test harness (`DripperTesting`, in this package) needs of a Station, and nothing more.
extension Station {
  /// Whether no effect can do anything until something outside it happens: every one has
  /// ended, or waits (on a test clock, a stream, an answer) with nothing to run, and no task a
  /// test clock woke still works. Exact in a Station watched by a test (see ``WatchedExecutor``);
  /// elsewhere, whether no effect is left.
  package var effectsSettled: Bool {
    guard let handler = rootHandler else { return true }
    return handler.executor?.isSettled ?? handler.effects.snapshot.isIdle
  }

  /// Whether every task of the effects has run until it waits for something: what a step of a
  /// test waits for before it returns, as TCA's `send` waits for the effects it started to start.
  package var effectsQuiet: Bool {
    guard let handler = rootHandler else { return true }
    return handler.executor?.isQuiet ?? true
  }

  /// How many times the effects have settled: pass it to ``waitForEffectsToSettle(after:)``.
  package var settlingEpoch: UInt64 { rootHandler?.executor?.epoch ?? 0 }

  /// Whether only advancing a test clock can make an effect pour: the effects have settled, and
  /// every task of every effect not cancelled sleeps on a test clock (or waits for tracked
  /// children that do). An effect that waits on anything else — a stream, real time, an answer, a
  /// child task it started itself that the clock woke — may still pour without the test's help.
  package var effectsWaitOnlyForTime: Bool {
    guard let handler = rootHandler else { return true }
    guard let executor = handler.executor else { return handler.effects.snapshot.isIdle }
    guard executor.isSettled else { return false }
    let tasks = handler.effects.read { $0.leaves.filter { $0.role == .task } }
    return tasks.allSatisfy { executor.waitsOnlyForTime($0.slot) }
  }

  /// Whether no effect is running or waiting to start.
  package var effectsIdle: Bool {
    rootHandler.map { $0.effects.snapshot.isIdle } ?? true
  }

  /// Waits until every task of the effects waits for something (see ``effectsQuiet``); returns
  /// early if cancelled.
  package func waitForEffectsToBeQuiet() async {
    await rootHandler?.executor?.waitUntilQuiet()
  }

  /// Waits until the effects have settled (see ``effectsSettled``); returns early if cancelled.
  package func waitForEffectsToSettle() async {
    guard let handler = rootHandler else { return }
    if let executor = handler.executor {
      await executor.waitUntilSettled()
    } else {
      await handler.effects.waitUntilIdle()
    }
  }

  /// Waits until the effects have settled again since `epoch`; returns early if cancelled.
  package func waitForEffectsToSettle(after epoch: UInt64) async {
    guard let handler = rootHandler else { return }
    if let executor = handler.executor {
      await executor.waitUntilSettled(after: epoch)
    } else {
      await handler.effects.waitUntilIdle()
    }
  }

  /// Waits until no effect is running or waiting to start; returns early if cancelled.
  package func waitForEffectsToEnd() async {
    await rootHandler?.effects.waitUntilIdle()
  }

  /// The effects still running or waiting, as `File.swift:line` where the user wrote them, with
  /// what they wait for when they wait, in the order they started.
  package var runningEffects: [String] {
    guard let handler = rootHandler else { return [] }
    return handler.effects.read { $0.leaves }.map { leaf in
      switch leaf.role {
      case .waiting: "\(leaf.origin) (waiting its turn or its throttle window)"
      case .delivery: "\(leaf.origin) (an action on its way)"
      case .task, .timer, .join, .window: "\(leaf.origin)"
      }
    }
  }

  /// Cancels every effect running or waiting now.
  package func cancelEffects() {
    rootHandler?.cancelAllEffects()
  }
}

extension Station {
  /// Lets the clock of `dependencies`, when it watches effects (a test clock), watch this
  /// Station's: for dependencies changed after the Station started.
  package func watchClock(of dependencies: DependencyValues) {
    guard let handler = rootHandler, let executor = handler.executor else { return }
    (dependencies.clock as? any EffectWatcher)?.watch(executor)
  }
}

extension DependencyValues {
  /// Where diagnostics raised while these dependencies are in force go.
  package var diagnosticReporter: (@Sendable (Diagnostic) -> Void)? {
    get { reporter }
    set { reporter = newValue }
  }

  /// Test dependencies with fresh caches, whose diagnostics go to `reporter`.
  package static func test(reporting reporter: @escaping @Sendable (Diagnostic) -> Void) -> DependencyValues {
    var values = DependencyValues(context: .test)
    values.reporter = reporter
    return values
  }
}
