import Dripper
import DripperTesting
import Synchronization
import Testing

@Suite struct TestStationFailureTests {
  @Test func aWrongStateFailsWithADiff() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await withExpectedFailure {
      await station.pour(.increase) { $0.count = 2 }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        The state after pouring .increase is not what was expected (- expected, + actual):
        - Counter.State(count: 2)
        + Counter.State(count: 1)
        """
      ]
    }
    await station.finish()
  }

  @Test func anUnexpectedStateChangeFails() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await withExpectedFailure {
      await station.pour(.increase)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        The state changed after pouring .increase, but no change was expected (- expected, + actual):
        - Counter.State(count: 0)
        + Counter.State(count: 1)
        """
      ]
    }
    await station.finish()
  }

  @Test func anActionThatNeverComesFailsAtOnceWhenNoEffectRuns() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await withExpectedFailure {
      await station.receive(.decrease)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Expected to receive .decrease, but no effect is running that could pour it (an effect asleep "
          + "on a TestClock waits for it to be advanced)."
      ]
    }
    await station.finish()
  }

  @Test func anEffectAsleepOnAClockIsNotWaitedFor() async {
    let clock = TestClock()
    let station = Counter.testStation(on: clock)
    await station.pour(.decreaseLater)
    await withExpectedFailure {
      await station.receive(.decrease, timeout: .seconds(60))
    } matching: {
      mentions("no effect is running that could pour it")($0)
    }
    await clock.advance(by: .seconds(1))
    await station.receive(.decrease) { $0.count = -1 }
    await station.finish()
  }

  @Test func receivingTheWrongActionFails() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.pour(.twice)
    await withExpectedFailure {
      await station.receive(.decrease)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        Expected to receive .decrease, but received .increase.
        Received, not asserted:
          .increase
          .increase
        The closest (- expected, + received):
        - .decrease
        + .increase
        """
      ]
    }
    await station.skipReceivedActions()
    await station.finish()
  }

  @Test func aReceiveTimesOutWhenARunningEffectPoursNothing() async {
    let gate = Lock<CheckedContinuation<Void, Never>?>(nil)
    let station = TestStation(initialState: Loader.State()) {
      Drip<Loader.State, Loader.Action> { _, _ in
        .run { _ in await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
      }
    }
    await station.pour(.load)
    await withExpectedFailure {
      await station.receive(.loaded, timeout: .milliseconds(50))
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Expected to receive an action of its case, but nothing was received within 0.05 seconds."
      ]
    }
    // Release the effect, whenever it has parked its continuation.
    while gate.withLock({ $0 == nil }) { await Task.yield() }
    gate.withLock { $0?.resume() }
    await station.finish()
  }

  @Test func actionsLeftUnreceivedFailAtTheEnd() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.pour(.twice)
    await withExpectedFailure {
      await station.finish()
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "2 actions were received but not asserted:\n  .increase\n  .increase"
      ]
    }
  }

  @Test func anEffectStillRunningFailsAtTheEnd() async {
    let clock = TestClock()
    let station = Counter.testStation(on: clock)
    await station.pour(.startTimer)
    await withExpectedFailure {
      await station.finish()
    } matching: { issue in
      let text = issue.comments.first?.rawValue ?? ""
      return text.hasPrefix(
        "1 effect is still running:\n  started at DripperTestingTests/TestStationTests.swift:")
        && text.hasSuffix("cancel them, or call skipInFlightEffects().")
    }
  }

  @Test func pouringBeforeReceivingFailsWhenExhaustive() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.pour(.twice)
    await withExpectedFailure {
      await station.pour(.decrease) { $0.count = 1 }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "2 received actions must be asserted before pouring .decrease:\n  .increase\n  .increase"
      ]
    }
    await station.finish()
  }

  @Test func aTestStationThatGoesAwayChecksWhatIsLeft() async {
    await withExpectedFailure {
      let station = TestStation(initialState: Counter.State()) { Counter() }
      await station.pour(.twice)
    } matching: {
      mentions("2 actions were received but not asserted")($0)
    }
  }

  @Test func callsWithoutATimeoutWaitTheStationsTimeout() async {
    let gate = Lock<CheckedContinuation<Void, Never>?>(nil)
    let station = TestStation(initialState: Loader.State()) {
      Drip<Loader.State, Loader.Action> { _, _ in
        .run { _ in await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
      }
    }
    let origin = "DripperTestingTests/TestStationFailureTests.swift:\(#line - 3)"
    #expect(station.timeout == .seconds(1))
    station.timeout = .milliseconds(50)
    let task = await station.pour(.load)
    await withExpectedFailure {
      await station.receive(.loaded)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Expected to receive an action of its case, but nothing was received within 0.05 seconds."
      ]
    }
    await withExpectedFailure {
      await task.finish()
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "1 effect is still running after waiting 0.05 seconds:\n  started at \(origin)"
      ]
    }
    while gate.withLock({ $0 == nil }) { await Task.yield() }
    gate.withLock { $0?.resume() }
    await station.finish()
  }

  @Test func diagnosticsAreFailures() async {
    struct Boom: Error {}
    let station = TestStation(initialState: Loader.State()) {
      Drip<Loader.State, Loader.Action> { _, _ in .run { _ in throw Boom() } }
    }
    let origin = "DripperTestingTests/TestStationFailureTests.swift:\(#line - 2)"
    await withExpectedFailure {
      await station.pour(.load).finish()
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "an effect started at \(origin) threw Boom(), which no 'catch' handled"
      ]
    }
    await station.finish()
  }

  @Test func anAssertionThatThrowsFails() async {
    struct Boom: Error {}
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await withExpectedFailure {
      await station.pour(.increase) { _ in throw Boom() }
    } matching: { issue in
      issue.comments.map(\.rawValue) == ["The assertion after pouring .increase threw Boom()."]
    }
    await station.finish()
  }

  @Test func theHelperSaysWhenEffectsOutliveItsTimeout() async {
    let clock = TestClock()
    await withExpectedFailure {
      await expectStates(
        initialState: Counter.State(), dripper: Counter(), withDependencies: { $0.clock = clock },
        act: [.increase, .decreaseLater], expect: [Counter.State(count: 1)],
        timeout: .milliseconds(50))
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Effects were still running after 0.05 seconds; the states below are those so far."
      ]
    }
  }

  @Test func theHelperReturnsAtItsTimeoutWhenAnEffectIgnoresCancellation() async {
    let gate = Lock<CheckedContinuation<Void, Never>?>(nil)
    await withExpectedFailure {
      await expectStates(
        initialState: Loader.State(),
        dripper: Drip<Loader.State, Loader.Action> { _, _ in
          .run { _ in await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
        },
        act: [.load], expect: [], timeout: .milliseconds(50))
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Effects were still running after 0.05 seconds; the states below are those so far."
      ]
    }
    while gate.withLock({ $0 == nil }) { await Task.yield() }
    gate.withLock { $0?.resume() }
  }

  @Test func theHelperExplainsWhichStatesDiffer() async {
    await withExpectedFailure {
      await expectStates(
        initialState: Counter.State(), dripper: Counter(), act: [.increase, .increase],
        expect: [Counter.State(count: 1), Counter.State(count: 3), Counter.State(count: 4)])
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        The states are not the expected ones (expected 3, got 2):
          [0] as expected
          [1] (- expected, + actual):
            - Counter.State(count: 3)
            + Counter.State(count: 2)
          [2] expected Counter.State(count: 4), got no state
        """
      ]
    }
  }
}
