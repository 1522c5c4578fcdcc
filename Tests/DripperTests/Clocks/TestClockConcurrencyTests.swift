import Testing

@testable import Dripper

/// Advances from several tasks at once add up (issue 14).
@Suite struct TestClockConcurrencyTests {
  /// A Station whose effect ticks every 5 ms on `clock`: each advance wakes it and waits for it to
  /// settle, so that advances from several tasks overlap.
  func ticking(on clock: TestClock) async -> StationOf<Runner> {
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      $0.clock = clock
    }
    station.pour(
      .run(
        .run { pour in
          while true {
            try await clock.sleep(for: .milliseconds(5))
            await pour(.record("tick"))
          }
        }))
    await station.reducePending()
    return station
  }

  @Test func overlappingAdvancesAddUp() async {
    let clock = TestClock()
    let station = await ticking(on: clock)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<2 { group.addTask { await clock.advance(by: .milliseconds(10)) } }
    }
    #expect(clock.now == TestClock.Instant(offset: .milliseconds(20)))
    #expect(await station.log.count == 4)
  }

  @Test func manyTasksAdvancingManyTimesAddUp() async {
    let clock = TestClock()
    let station = await ticking(on: clock)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<50 { await clock.advance(by: .milliseconds(5)) }
        }
      }
    }
    #expect(clock.now == TestClock.Instant(offset: .seconds(1)))
    #expect(await station.log.count == 200)
  }
}
