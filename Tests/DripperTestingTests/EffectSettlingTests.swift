import Dripper
import DripperTesting
import Foundation
import Testing

/// A feature whose effects run several tasks at once, on the clock dependency.
struct Parallel: Dripper {
  struct State: Equatable, Sendable {}
  enum Action: Equatable, Sendable {
    case startGroup, startTimeout, debounced, enqueued, throttled
    case tick(Int)
    case got(Int)
    case timedOut
  }

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { _, action in
      switch action {
      case .startGroup:
        return .run { pour in
          await withTaskGroup(of: Void.self) { group in
            for second in 1...2 {
              group.addTask {
                try? await clock.sleep(for: .seconds(second))
                for _ in 0..<1_000 { await Task.yield() }  // Work after the wake, before the pour.
                await pour(.tick(second))
              }
            }
          }
        }
      case .startTimeout:
        return .run { pour in
          do {
            let value = try await withTimeout(.seconds(5), clock: clock) {
              try await clock.sleep(for: .seconds(1))
              // Work after the wake, while the timer still sleeps on the same clock.
              for _ in 0..<1_000 { await Task.yield() }
              return 42
            }
            await pour(.got(value))
          } catch {
            await pour(.timedOut)
          }
        }
      case .debounced:
        return .send(.tick(0)).debounce(id: "search", for: .seconds(1), clock: clock)
      case .enqueued:
        return .run { _ in try await clock.sleep(for: .seconds(1)) }.cancellable(
          id: "upload", policy: .enqueue)
      case .throttled:
        return .send(.tick(0)).throttle(id: "scroll", for: .seconds(1), clock: clock, latest: true)
      case .tick, .got, .timedOut:
        return .none
      }
    }
  }
}

/// Settling is tracked per task, not per effect: an effect whose operation runs several tasks
/// settles when all of them wait (issue 13).
@Suite struct EffectSettlingTests {
  @Test func eachChildOfATaskGroupIsWaitedForWhenItWakes() async {
    let clock = TestClock()
    let station = TestStation(initialState: Parallel.State()) {
      Parallel()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.startGroup)
    await clock.advance(by: .seconds(1))
    await station.receive(.tick(1))
    await clock.advance(by: .seconds(1))
    await station.receive(.tick(2))
    await station.finish()
  }

  @Test func runningTheClockDoesNotJumpToATimeoutWhileTheOperationWorks() async {
    let clock = TestClock()
    let station = TestStation(initialState: Parallel.State()) {
      Parallel()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.startTimeout)
    await clock.run()
    await station.receive(.got(42))
    await station.finish()
  }

  @Test func anEffectWaitingOnAStreamDoesNotHoldTimeUp() async {
    // Settling waits for the effect to have nothing to run, never for the timeout: with an hour of
    // it, ten advances still return at once.
    let clock = TestClock(settleTimeout: .seconds(3_600))
    let station = Station(initialState: Parallel.State()) {
      Drip<Parallel.State, Parallel.Action> { _, _ in
        .run { _ in
          let (stream, _) = AsyncStream.makeStream(of: Int.self)
          for await _ in stream {}
        }
      }
    } withDependencies: {
      $0.clock = clock
    }
    station.pour(.startGroup)
    await station.reducePending()
    let advanced = Task {
      for _ in 0..<10 { await clock.advance(by: .seconds(1)) }
      return !Task.isCancelled  // Cancelled: the advances held time up for ten minutes.
    }
    // Held up, the advances would take ten hours; the bound is far from both. A minute was too
    // short for the suite under ThreadSanitizer with both cores busy (CI, 8134c7d).
    let timer = Task {
      try? await Task.sleep(for: .seconds(600))
      advanced.cancel()
    }
    #expect(await advanced.value)
    #expect(clock.now == TestClock.Instant(offset: .seconds(10)))
    timer.cancel()
  }
}

/// TCA's `testScheduling` (ComposableArchitectureTests): one effect, three children of a task
/// group, each sleeping on the clock then pouring, ported as written; `after` says what each child
/// does between its wake and its pour, and `withTimeout` wraps the group in one.
struct Scheduling: Dripper {
  typealias State = Int
  enum Action: Equatable, Sendable { case incrAndSquareLater, incrNow, squareNow }
  enum Work: Sendable, CaseIterable { case nothing, realTime }

  @Dependency(\.clock) var clock
  let after: Work
  let underTimeout: Bool

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .incrAndSquareLater:
        return .run { [clock, after, underTimeout] pour in
          @Sendable func children() async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
              for (seconds, action) in [(2, Action.incrNow), (1, .squareNow), (2, .squareNow)] {
                group.addTask {
                  try await clock.sleep(for: .seconds(seconds))
                  // Waiting on the outside world: real time, as a server's answer would take.
                  if after == .realTime { try await Task.sleep(for: .milliseconds(20)) }
                  await pour(action)
                }
              }
              try await group.waitForAll()
            }
          }
          if underTimeout {
            try await withTimeout(.seconds(10), clock: clock) { try await children() }
          } else {
            try await children()
          }
        }
      case .incrNow:
        state += 1
        return .none
      case .squareNow:
        state *= state
        return .none
      }
    }
  }
}

@Suite struct SchedulingTests {
  @Test(arguments: [false, true])
  func testScheduling(underTimeout: Bool) async {
    let clock = TestClock()
    let store = TestStation(initialState: 2) {
      Scheduling(after: .nothing, underTimeout: underTimeout)
    } withDependencies: {
      $0.clock = clock
    }
    await store.pour(.incrAndSquareLater)
    await clock.advance(by: .seconds(1))
    await store.receive(.squareNow) { $0 = 4 }
    await clock.advance(by: .seconds(1))
    await store.receive(.incrNow) { $0 = 5 }
    await store.receive(.squareNow) { $0 = 25 }

    await store.pour(.incrAndSquareLater)
    await clock.advance(by: .seconds(2))
    await store.receive(.squareNow) { $0 = 625 }
    await store.receive(.incrNow) { $0 = 626 }
    await store.receive(.squareNow) { $0 = 391_876 }
  }

  /// A child woken by the clock that then waits on the outside world may still pour: `receive`
  /// waits for it, within the station's timeout, while its siblings sleep on the clock.
  @Test(arguments: [false, true])
  func aWokenChildWaitingOnRealTimeIsWaitedFor(underTimeout: Bool) async {
    let clock = TestClock()
    let store = TestStation(initialState: 2) {
      Scheduling(after: .realTime, underTimeout: underTimeout)
    } withDependencies: {
      $0.clock = clock
    }
    await store.pour(.incrAndSquareLater)
    await clock.advance(by: .seconds(1))
    await store.receive(.squareNow) { $0 = 4 }
    await store.skipInFlightEffects()
  }

  /// The operation of a `withTimeout` that the clock woke, and that then waits on the outside
  /// world, is running: `run()` waits for it rather than jumping to the timeout.
  @Test func runningTheClockWaitsForAWokenOperationThatWaitsOnRealTime() async {
    let clock = TestClock()
    let station = TestStation(initialState: Parallel.State()) {
      Drip<Parallel.State, Parallel.Action> { _, action in
        guard action == .startTimeout else { return .none }
        return .run { pour in
          do {
            let value = try await withTimeout(.seconds(5), clock: clock) {
              try await clock.sleep(for: .seconds(1))
              try await Task.sleep(for: .milliseconds(20))
              return 42
            }
            await pour(.got(value))
          } catch {
            await pour(.timedOut)
          }
        }
      }
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.startTimeout)
    await clock.run()
    await station.receive(.got(42))
    await station.finish()
  }
}
