import Dripper
import DripperTesting
import Testing

/// Issue 53: a main-actor test suite, as every TCA test file has, uses a TestStation as any
/// other test does, assertion closures and all.
@MainActor
@Suite struct MainActorSuiteTests {
  @Test func aMainActorTestPoursReceivesAndAsserts() async {
    let clock = TestClock()
    let station = Counter.testStation(on: clock)
    await station.pour(.increase) { $0.count = 1 }
    await station.pour(.decreaseLater)
    await clock.advance(by: .seconds(1))
    await station.receive(.decrease) { $0.count = 0 }
    await station.assert { $0.count = 0 }
    await station.withExhaustivity(.off) {
      await station.pour(.decreaseLater)
      await clock.advance(by: .seconds(1))
      await station.skipReceivedActions()
    }
    await station.finish()
    #expect(station.state.count == -1)
  }
}
