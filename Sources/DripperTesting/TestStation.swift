@_exported public import Dripper
import Synchronization

/// A Station for tests: it checks that each action changes the state exactly as the test says,
/// that the actions effects pour are the ones the test expects, and that nothing is left running.
///
/// ```swift
/// import DripperTesting   // brings Dripper with it: TestClock, Effect, DependencyValues
/// import Testing
///
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
/// unimplemented dependency, an action for a child that is gone) are test failures. A dependency
/// whose key has no `testValue` fails the test where it is first read — in the feature, in an
/// effect, or in the `withDependencies` closure itself (`$0.api.fetch = { … }` reads the rest of
/// `api` first) — and then resolves to its live value: the test fails, but what the live value
/// does still runs. Write a `testValue` with `unimplemented(_:placeholder:)` endpoints
/// so that nothing live runs.
public final class TestStation<State: Equatable & Sendable, Action: Sendable>: Sendable {
  let station: Station<State, TestAction<Action>>
  let log: ReductionLog<State, Action>
  let reporter: FailureReporter
  let origin: SourceLocation
  let progress: Lock<Progress>
  let pendingDiagnostics = Lock<[Diagnostic]>([])
  /// The dependencies in force while the Station reduces, shared with its ``RecordingDripper``.
  let values: DependencyBox
  let diagnostics: DiagnosticForwarder
  /// Whether the feature dismissed itself, and how its effects are cancelled when it does.
  let dismissal: RootDismissal
  /// The feature's reduction outside the Station: a replay reduces an action once more with it to
  /// explain a divergence.
  let reduceAgain: @Sendable (inout State, Action) -> Void

  struct Progress {
    /// The state as the test last asserted it.
    var expected: Snapshot<State>
    /// How many reductions the test has accounted for.
    var asserted = 0
    var exhaustivity = Exhaustivity.on
    var timeout = Duration.seconds(1)
    var isFinished = false
    /// Whether ``TestStation/skipInFlightEffects(strict:fileID:filePath:line:column:)`` cancelled
    /// the effects, with no pour since: what is still winding down is not reported at the end.
    var skippedInFlight = false
  }

  /// Starts a feature for a test.
  ///
  /// The initial state and the feature are made with the test's dependencies in force, as TCA's
  /// `TestStore` makes them: a state whose initializer reads `@Dependency(\.uuid)` gets the
  /// generator the test gives.
  ///
  /// ```swift
  /// let station = TestStation(initialState: Todos.State()) {   // Todos.State() reads \.uuid
  ///   Todos()
  /// } withDependencies: {
  ///   $0.uuid = .incrementing
  /// }
  /// ```
  ///
  /// The feature under test may dismiss itself through `@Dependency(\.dismiss)`, as a presented
  /// screen does: ``isDismissed`` becomes `true` and its effects are cancelled.
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
    initialState: @autoclosure () -> State,
    @DripperBuilder<State, Action> dripper: () -> D,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    reporter: FailureReporter = .automatic,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let log = ReductionLog<State, Action>()
    let origin = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let diagnostics = DiagnosticForwarder()
    let dismissal = RootDismissal()
    var dependencies = DependencyValues.test(reporting: diagnostics.forward)
    dependencies.dismiss = dismissal.effect
    prepareDependencies(&dependencies)
    let (initialState, base) = withDependencies {
      $0 = dependencies
    } operation: {
      (initialState(), dripper())
    }
    let values = DependencyBox(dependencies)
    self.log = log
    self.reporter = reporter
    self.origin = origin
    self.values = values
    self.diagnostics = diagnostics
    self.dismissal = dismissal
    self.progress = Lock(Progress(expected: Snapshot(state: initialState, shared: SharedSnapshot())))
    let feature = RecordingDripper(base: base, log: log, dependencies: values)
    self.reduceAgain = { state, action in _ = feature.reduceWithoutStation(&state, action) }
    self.station = Station(initialState: initialState) {
      feature
    } withDependencies: {
      $0 = dependencies
    }
    let station = self.station
    let shared = station.sharedSnapshot
    progress.withLock { $0.expected.shared = shared }
    dismissal.connect { [weak station] in station?.cancelEffects() }
    // Diagnostics arrive on the Station's tasks, where no test is current: they are reported from
    // the test's next call instead. Those raised while the dependencies were prepared (a key
    // without a test value, read by a partial override) are reported here, at the TestStation.
    diagnostics.connect { [weak self] diagnostic in
      self?.pendingDiagnostics.withLock { $0.append(diagnostic) }
    }
    reportDiagnostics(at: origin)
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
  /// effects that wait on the outside world (real time, a server's answer), unless a call gives
  /// its own: 1 second by default, as TCA's `TestStore.timeout`.
  ///
  /// The wait ends as soon as the action arrives or no effect could pour it, so a passing test
  /// never waits it out, whatever the load on the machine: effects that only sleep on a
  /// `TestClock` are not waited for at all, and work that runs without waiting on anything is
  /// always waited for (the Station's tasks run on an executor that knows when they wait). Raise
  /// it for effects whose real work outside takes longer.
  ///
  /// ```swift
  /// station.timeout = .milliseconds(200)
  /// ```
  public var timeout: Duration {
    get { progress.withLock { $0.timeout } }
    set { progress.withLock { $0.timeout = newValue } }
  }

  /// The state as the test last asserted it (in non-exhaustive mode, as it actually is).
  public var state: State { progress.withLock { $0.expected.state } }

  /// Whether the feature under test dismissed itself through `@Dependency(\.dismiss)`, as TCA's
  /// `TestStore.isDismissed`: its effects were cancelled, and it takes no more actions.
  ///
  /// ```swift
  /// await station.pour(.deleteConfirmed)
  /// #expect(station.isDismissed)
  /// ```
  public var isDismissed: Bool { dismissal.isDismissed }

  /// The dependencies the feature runs with: read them, or change them between steps, as TCA's
  /// `store.dependencies`. A change applies to the reductions after it and to the effects they
  /// start; effects already running keep the values they started with.
  ///
  /// ```swift
  /// station.dependencies.apiClient.fetch = { _ in throw Offline() }
  /// await station.pour(.refresh)
  /// await station.receive(.failed) { $0.isOffline = true }
  /// ```
  ///
  /// Diagnostics keep going to this test, whatever the new values say, and a new test clock
  /// waits for this Station's effects like the first.
  public var dependencies: DependencyValues {
    get { values.current }
    set {
      var newValue = newValue
      newValue.diagnosticReporter = diagnostics.forward
      values.current = newValue
      station.watchClock(of: newValue)
    }
  }

  /// Runs `body` with ``exhaustivity`` set to `exhaustivity`, then restores it: a part of an
  /// exhaustive test that checks only what it asserts.
  ///
  /// ```swift
  /// await station.withExhaustivity(.off) {
  ///   await station.pour(.login)
  ///   await station.receive(.loggedIn) { $0.user?.name = "Blob" }
  /// }
  /// ```
  public nonisolated(nonsending) func withExhaustivity(
    _ exhaustivity: Exhaustivity, _ body: () async throws -> Void
  ) async rethrows {
    let previous = progress.withLock { progress in
      defer { progress.exhaustivity = exhaustivity }
      return progress.exhaustivity
    }
    defer { self.exhaustivity = previous }
    try await body()
  }

  // MARK: - Diagnostics

  /// Reports the diagnostics the Station raised since the last call, at this call.
  func reportDiagnostics(at location: SourceLocation) {
    let diagnostics = pendingDiagnostics.withLock { pending in
      defer { pending.removeAll() }
      return pending
    }
    for diagnostic in diagnostics { reporter.fail(diagnostic.message, at: location) }
  }
}

/// The dependencies a ``TestStation`` runs its feature with: changed by the test between steps,
/// read by every reduction.
final class DependencyBox: Sendable {
  private let values: Lock<DependencyValues>

  init(_ values: DependencyValues) { self.values = Lock(values) }

  var current: DependencyValues {
    get { values.withLock { $0 } }
    set { values.withLock { $0 = newValue } }
  }
}

/// Forwards the Station's diagnostics to the test, once the `TestStation` that reports them exists;
/// those raised before are kept until then.
final class DiagnosticForwarder: Sendable {
  private struct Target {
    var report: (@Sendable (Diagnostic) -> Void)?
    var early: [Diagnostic] = []
  }

  private let target = Lock(Target())

  var forward: @Sendable (Diagnostic) -> Void {
    { [self] diagnostic in
      let report = target.withLock { target in
        if target.report == nil { target.early.append(diagnostic) }
        return target.report
      }
      report?(diagnostic)
    }
  }

  func connect(_ report: @escaping @Sendable (Diagnostic) -> Void) {
    let early = target.withLock { target in
      target.report = report
      defer { target.early = [] }
      return target.early
    }
    for diagnostic in early { report(diagnostic) }
  }
}

/// The dismissal of the feature under test, which no parent presents: it is marked dismissed and
/// its effects are cancelled, as TCA's `TestStore` does.
final class RootDismissal: Sendable {
  private struct State {
    var isDismissed = false
    var cancelEffects: (@Sendable () -> Void)?
  }

  private let state = Lock(State())

  var isDismissed: Bool { state.withLock { $0.isDismissed } }

  /// The `dismiss` dependency the feature's effects call.
  var effect: DismissEffect {
    DismissEffect { [self] in
      let cancel = state.withLock { state in
        state.isDismissed = true
        return state.cancelEffects
      }
      cancel?()
    }
  }

  /// Cancels the Station's effects with `cancelEffects` when the feature dismisses itself.
  func connect(_ cancelEffects: @escaping @Sendable () -> Void) {
    state.withLock { $0.cancelEffects = cancelEffects }
  }
}

extension TestStation where Action: ReplyingAction {
  /// What the feature replied, in the order it replied: what a `StationHost` answers the requests
  /// that reach it with (see `Effect.reply(_:)`).
  ///
  /// ```swift
  /// await station.pour(.withdraw(500))
  /// #expect(station.replies.last == .refused("would overdraw"))
  /// ```
  public var replies: [Action.Reply] {
    log.reductions(from: 0).compactMap { $0.reply as? Action.Reply }
  }
}
