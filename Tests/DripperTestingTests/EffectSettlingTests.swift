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
      return !Task.isCancelled  // Cancelled: the advances held time up for a minute.
    }
    let timer = Task {
      try? await Task.sleep(for: .seconds(60))
      advanced.cancel()
    }
    #expect(await advanced.value)
    #expect(clock.now == TestClock.Instant(offset: .seconds(10)))
    timer.cancel()
  }
}
