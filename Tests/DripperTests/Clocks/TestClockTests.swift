import Testing

@testable import Dripper

@Suite struct TestClockTests {
  @Test func sleepersWakeInDeadlineOrder() async {
    let clock = TestClock()
    let woke = Recorder<Int>()
    let tasks = [3, 1, 2].map { seconds in
      Task {
        try await clock.sleep(for: .seconds(seconds))
        woke.append(seconds)
      }
    }
    while clock.sleeperCount < 3 { await Task.yield() }
    for seconds in 1...3 {
      await clock.advance(by: .seconds(1))
      _ = try? await tasks[[3, 1, 2].firstIndex(of: seconds)!].value
    }
    #expect(woke.all == [1, 2, 3])
    #expect(clock.now.offset == .seconds(3))
  }

  @Test func timeMovesOnlyWhenAdvanced() async {
    let clock = TestClock()
    let start = clock.now
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    while clock.sleeperCount < 1 { await Task.yield() }
    #expect(clock.now == start)
    await clock.advance(by: .milliseconds(999))
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(1))
    #expect((try? await sleeper.value) != nil)
  }

  /// swift-clocks' `TestClock`, which TCA's tests use: a sleep to a deadline not after now waits
  /// for the clock to be advanced or run, so that a cancel never races the sleeper's next step.
  @Test(arguments: [Duration.zero, .seconds(-1)])
  func aSleepDueNowWaitsForAnAdvance(_ duration: Duration) async {
    let clock = TestClock()
    let woke = Recorder<Int>()
    let sleeper = Task {
      try await clock.sleep(for: duration)
      woke.append(1)
    }
    while clock.sleeperCount < 1, woke.all.isEmpty { await Task.yield() }
    #expect(woke.all.isEmpty)
    #expect(clock.sleeperCount == 1)
    await clock.advance()
    _ = try? await sleeper.value
    #expect(woke.all == [1])
    #expect(clock.now.offset == .zero)
  }

  @Test func runWakesASleepDueNow() async {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .zero) }
    while clock.sleeperCount < 1 { await Task.yield() }
    await clock.run()
    #expect((try? await sleeper.value) != nil)
  }

  @Test func cancellingASleeperRemovesIt() async {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    while clock.sleeperCount < 1 { await Task.yield() }
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }

  @Test func runWakesEverySleeper() async {
    let clock = TestClock()
    let sleepers = (1...4).map { seconds in Task { try await clock.sleep(for: .seconds(seconds)) } }
    while clock.sleeperCount < 4 { await Task.yield() }
    await clock.run()
    for sleeper in sleepers { #expect((try? await sleeper.value) != nil) }
    #expect(clock.now.offset == .seconds(4))
  }

  @Test func advanceWaitsForEffectsToSleepAgain() async {
    let timed = TimedRunner()
    let clock = timed.clock
    // A timer: each tick sleeps again from where the last woke.
    let timer = Effect<Runner.Action>.run { pour in
      for tick in 1...5 {
        try await clock.sleep(for: .seconds(1))
        await pour(.record("tick \(tick) at \(clock.now.offset)"))
      }
    }
    await timed.run(timer)
    await clock.advance(by: .seconds(3))
    #expect(
      await timed.log == ["tick 1 at 1.0 seconds", "tick 2 at 2.0 seconds", "tick 3 at 3.0 seconds"])
  }

  @Test func anEffectWaitingOnAStreamHoldsTimeUpOnlyForTheSettleTimeout() async {
    let clock = TestClock(settleTimeout: .milliseconds(50))
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      $0.clock = clock
    }
    let (events, continuation) = AsyncStream.makeStream(of: String.self)
    // A long-lived effect: it waits on the stream, not on the clock, so it never settles.
    let listener = station.pour(
      .run(.run { pour in for await event in events { await pour(.record(event)) } }))
    let timer = station.pour(
      .run(
        .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.record("woke"))
        }))
    while clock.sleeperCount < 1 { await Task.yield() }
    await clock.advance(by: .seconds(1))
    continuation.yield("event")
    continuation.finish()
    await listener.finish()
    await timer.finish()
    #expect(await station.log.sorted() == ["event", "woke"])
  }

  @Test func whatTheClockSaysWhenEffectsDoNotSettle() {
    let message = TestClock.unsettledMessage(
      origins: ["Feature.swift:12", "Feature.swift:30"], after: .seconds(10))
    #expect(
      message
        == "TestClock: effects started at Feature.swift:12, Feature.swift:30 were still running after"
        + " 10.0 seconds, so time moved on without them; an effect that waits on something other than"
        + " the clock holds up every advance for settleTimeout: give the clock a shorter one")
  }

  @Test func anImmediateClockReturnsAtOnceAndMovesOn() async throws {
    let clock = ImmediateClock()
    try await clock.sleep(for: .seconds(60))
    try await clock.sleep(for: .seconds(60))
    #expect(clock.now.offset == .seconds(120))
  }
}
