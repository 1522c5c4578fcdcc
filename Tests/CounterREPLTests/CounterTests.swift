import Dripper
import REPLSupport
import Synchronization
import Testing

@testable import CounterREPL

@Suite struct CounterTests {
  @Test func randomWaitsOnTheClockThenSetsTheCount() async {
    let clock = TestClock()
    let station = Station(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.clock = clock
      $0.random = .seeded(1)
    }
    let task = station.pour(.randomTapped)
    #expect(await station.isRandomPending)
    await clock.advance(by: Counter.randomDelay - .milliseconds(1))
    #expect(await station.count == 0)
    await clock.advance(by: .milliseconds(1))
    await task.finish()
    let expected = RandomGenerator.seeded(1).int(in: 1...100)
    #expect(await station.state == Counter.State(count: expected))
  }

  @Test func cancelStopsBothEffects() async {
    let clock = TestClock()
    let station = Station(initialState: Counter.State(count: 50_000)) {
      Counter()
    } withDependencies: {
      $0.clock = clock
    }
    let random = station.pour(.randomTapped)
    let fact = station.pour(.factTapped)
    station.pour(.cancelTapped)
    await random.finish()
    await fact.finish()
    await clock.advance(by: .seconds(1))
    #expect(await station.state == Counter.State(count: 50_000))
  }

  @Test func countsStopAtTheLimit() async {
    let station = Station(initialState: Counter.State(count: Counter.limit)) { Counter() }
    station.pour(.increase)
    #expect(await station.count == Counter.limit)
    station.pour(.set(-Counter.limit))
    station.pour(.decrease)
    #expect(await station.count == -Counter.limit)
  }

  @Test(arguments: [
    (0, "0! = 1"), (5, "5! = 120"), (25, "25! = 15511210043330985984000000"),
    (39, "39! has 47 digits and starts 203978…"),
    (-3, "-3! is not defined: factorials are for whole numbers from 0"),
  ])
  func factsAreRight(n: Int, fact: String) async throws {
    #expect(try await Fact.about(n) == fact)
  }
}
