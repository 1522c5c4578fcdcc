import Dripper
import DripperTesting
import Synchronization
import Testing

/// Failures a `TestStation` reports, kept instead of recorded: for checks of what it reports when
/// it goes away, which `withKnownIssue` cannot wrap.
final class FailureLog: Sendable {
  private let messages = Lock<[String]>([])

  var reporter: FailureReporter {
    FailureReporter { message, _, _, _, _ in self.messages.withLock { $0.append(message) } }
  }

  var all: [String] { messages.withLock { $0 } }
}

/// A client whose answer takes time on a test clock it captured: the clock is not the Station's
/// `clock` dependency, so it learns of the Station only when an effect sleeps on it.
struct SlowClient: Sendable {
  var fetch: @Sendable () async throws -> Int
}

enum SlowClientKey: DependencyKey {
  static let liveValue = SlowClient(fetch: { 0 })
}

extension DependencyValues {
  var slowClient: SlowClient {
    get { self[SlowClientKey.self] }
    set { self[SlowClientKey.self] = newValue }
  }
}

/// A feature whose effects do work before they wait, or after they pour, or when cancelled: the
/// moments a harness that guesses gets wrong.
struct Busy: Dripper {
  struct State: Equatable, Sendable { var value = 0 }
  enum Action: Equatable, Sendable {
    case fetch
    case fetched(Int)
    case start, startReplacing, stop, done
    case workThenWait
    case pourThenWork
  }

  enum WorkID: Hashable, Sendable { case work }

  @Dependency(\.slowClient) var client
  @Dependency(\.clock) var clock
  /// Set by an effect's last step, once its work is over.
  let finished: Flag

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .fetch:
        return .run { pour in
          for _ in 0..<1_000 { await Task.yield() }  // Work before the first wait.
          await pour(.fetched(try await client.fetch()))
        }
      case .fetched(let value):
        state.value = value
        return .none
      case .start:
        return windingDown().cancellable(id: WorkID.work)
      case .startReplacing:
        return windingDown().cancellable(id: WorkID.work, cancelInFlight: true)
      case .stop:
        return .cancel(id: WorkID.work)
      case .done:
        state.value += 1
        return .none
      case .workThenWait:
        return .run { [finished] _ in
          for _ in 0..<1_000 { await Task.yield() }
          finished.set()
          try await clock.sleep(for: .seconds(60))
        }
      case .pourThenWork:
        return .run { [finished] pour in
          await pour(.done)
          for _ in 0..<10_000 { await Task.yield() }  // Work after the last pour.
          finished.set()
        }
      }
    }
  }

  /// An effect that waits for time, and takes a while to wind down once cancelled.
  private func windingDown() -> Effect<Action> {
    .run { [clock, finished] _ in
      do {
        try await clock.sleep(for: .seconds(60))
      } catch {
        for _ in 0..<10_000 { await Task.yield() }
        finished.set()
      }
    }
  }
}

/// A flag an effect raises, read by the test.
final class Flag: Sendable {
  private let raised = Atomic<Bool>(false)
  func set() { raised.store(true, ordering: .releasing) }
  var isSet: Bool { raised.load(ordering: .acquiring) }
}

/// The harness waits for what it can know, and never guesses when effects are done (issue 40).
@Suite struct HarnessRaceTests {
  private func busyStation(
    clock: TestClock = TestClock(), finished: Flag = Flag(), failures: FailureLog? = nil
  ) -> TestStation<Busy.State, Busy.Action> {
    TestStation(
      initialState: Busy.State(), dripper: { Busy(finished: finished) },
      withDependencies: {
        $0.clock = clock
        $0.slowClient = SlowClient {
          try await clock.sleep(for: .seconds(1))
          return 42
        }
      }, reporter: failures?.reporter ?? .automatic)
  }

  // MARK: - A pour waits for its effects to start

  /// TCA's `send` returns once the effects it started have started: SyncUpDetail's openSettings
  /// and ReusableFavoriting's happyPath advance a clock right after it.
  @Test func anAdvanceRightAfterAPourSeesTheSleepItsEffectReaches() async {
    let clock = TestClock()
    let station = busyStation(clock: clock)
    await station.pour(.fetch)
    await clock.advance(by: .seconds(1))
    await station.receive(.fetched(42)) { $0.value = 42 }
    await station.finish()
  }

  @Test func aPourReturnsOnceItsEffectsWaitOnSomething() async {
    let finished = Flag()
    let station = busyStation(finished: finished)
    await station.pour(.workThenWait)
    #expect(finished.isSet)
    await station.skipInFlightEffects()
  }

  // MARK: - Nothing cancelled or over is "still running"

  enum Cancelling: CaseIterable, Sendable { case cancelID, cancelInFlight, skipInFlight }

  /// TCA: a cancelled effect is not in flight, whatever its task still does (Effects-Cancellation,
  /// Search, Refreshable, Timers, WebSocket).
  @Test(arguments: Cancelling.allCases)
  func anEffectWindingDownAfterItsCancellationIsNotStillRunning(_ cancelling: Cancelling) async {
    let failures = FailureLog()
    do {
      let station = busyStation(failures: failures)
      await station.pour(.start)
      switch cancelling {
      case .cancelID: await station.pour(.stop)
      case .cancelInFlight:
        await station.pour(.startReplacing)
        await station.pour(.stop)
      case .skipInFlight: await station.skipInFlightEffects()
      }
    }  // The station goes here, without a finish(): its report is made as it goes.
    #expect(failures.all == [])
  }

  @Test func anEffectPastItsLastPourIsNotStillRunning() async {
    let failures = FailureLog()
    let finished = Flag()
    do {
      let station = busyStation(finished: finished, failures: failures)
      await station.pour(.pourThenWork)
      await station.receive(.done) { $0.value = 1 }
    }
    #expect(failures.all == [])
    #expect(finished.isSet)
  }

  /// TCA's `await task.cancel()` returns once the effects are over.
  @Test func cancellingAPoursTaskWaitsForItsEffectsToEnd() async {
    let finished = Flag()
    let station = busyStation(finished: finished)
    let task = await station.pour(.start)
    await task.cancel()
    #expect(finished.isSet)
    await station.finish()
  }

  @Test func theTimeoutIsOneSecondByDefault() {
    let station = TestStation(initialState: Busy.State()) { Busy(finished: Flag()) }
    #expect(station.timeout == .seconds(1))
  }
}
