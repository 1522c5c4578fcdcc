@testable import Dripper

/// A Station of ``Runner`` on a test clock, with helpers to write timed effects.
struct TimedRunner {
  let clock = TestClock()
  let station: StationOf<Runner>

  init() {
    let clock = self.clock
    station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      $0.clock = clock
    }
  }

  /// An effect that sleeps `duration` on the clock, then records `name`.
  func after(_ duration: Duration, record name: String) -> Effect<Runner.Action> {
    let clock = self.clock
    return .run { pour in
      try await clock.sleep(for: duration)
      await pour(.record(name))
    }
  }

  /// Pours an action and waits for its reduction (not for its effects).
  @discardableResult
  func pour(_ action: Runner.Action) async -> PourTask {
    let task = station.pour(action)
    await station.reducePending()
    return task
  }

  func run(_ effect: Effect<Runner.Action>) async {
    await pour(.run(effect))
  }

  var log: [String] {
    get async { await station.log }
  }
}
