import Testing

@testable import Dripper

@Suite struct TimeTests {
  struct ID: Hashable, Sendable {}

  @Test func cancellingADebouncedEffectStopsIt() async {
    let timed = TimedRunner()
    await timed.run(.send(.record("a")).debounce(id: ID(), for: .seconds(1), clock: timed.clock))
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(2))
    #expect(await timed.log == [])
  }

  @Test(arguments: [true, false])
  func throttleRunsAtMostOncePerInterval(latest: Bool) async {
    let timed = TimedRunner()
    for name in ["1", "2", "3"] {
      await timed.run(
        .send(.record(name)).throttle(id: ID(), for: .seconds(1), clock: timed.clock, latest: latest))
      await timed.clock.advance(by: .milliseconds(100))
    }
    var log = await timed.log
    #expect(log == ["1"])
    await timed.clock.advance(by: .milliseconds(699))
    log = await timed.log
    #expect(log == ["1"])
    // The window opened at 0 s ends at 1 s.
    await timed.clock.advance(by: .milliseconds(1))
    log = await timed.log
    #expect(log == ["1", latest ? "3" : "2"])
    // The held one opened a new window: a new effect waits for its end.
    await timed.run(
      .send(.record("4")).throttle(id: ID(), for: .seconds(1), clock: timed.clock, latest: latest))
    #expect(await timed.log == ["1", latest ? "3" : "2"])
    await timed.clock.advance(by: .seconds(1))
    #expect(await timed.log == ["1", latest ? "3" : "2", "4"])
    // After a quiet interval, an effect runs at once.
    await timed.clock.advance(by: .seconds(2))
    await timed.run(
      .send(.record("5")).throttle(id: ID(), for: .seconds(1), clock: timed.clock, latest: latest))
    #expect(await timed.log.last == "5")
  }

  @Test func timeoutThrowsWhenTheClockPassesFirst() async {
    let timed = TimedRunner()
    let clock = timed.clock
    let effect = Effect<Runner.Action>.run { pour in
      let value = try await withTimeout(.seconds(1), clock: clock) {
        try await clock.sleep(for: .seconds(5))
        return "slow"
      }
      await pour(.record(value))
    } catch: { error, pour in
      await pour(.record("\(error)"))
    }
    await timed.run(effect)
    await clock.advance(by: .seconds(1))
    #expect(await timed.log == ["timed out after 1.0 seconds"])
  }

  @Test func timeoutReturnsTheValueWhenTheOperationIsFaster() async throws {
    let clock = TestClock()
    let value = try await withTimeout(.seconds(1), clock: clock) { "fast" }
    #expect(value == "fast")
  }
}
