import Synchronization
import Testing

@testable import Dripper

@Suite struct LifetimeTests {
  /// Counts the instances alive.
  final class Tracked: Sendable {
    static let alive = Atomic(0)
    init() { Self.alive.add(1, ordering: .relaxed) }
    deinit { Self.alive.subtract(1, ordering: .relaxed) }
  }

  @Test func aReleasedStationFreesItsHandlerEffectsAndObserversContinuations() async {
    let before = Tracked.alive.load(ordering: .relaxed)
    weak var weakStation: StationOf<Runner>?
    weak var weakHandler: StateHandler<Runner.State, Runner.Action>?
    let statesEnded = Gate()
    let eventsEnded = Gate()
    do {
      let station = Station(initialState: Runner.State()) { Runner() }
      weakStation = station
      weakHandler = station.rootHandler
      let tracked = Tracked()
      let started = Gate()
      station.pour(
        .run(
          .run { _ in
            withExtendedLifetime(tracked) {}
            started.open()
            try await Task.sleep(for: .seconds(3_600))
          }))
      await started.wait()
      let states = station.states
      let events = station.events(of: String.self)
      Task {
        for await _ in states {}
        statesEnded.open()
      }
      Task {
        for await _ in events {}
        eventsEnded.open()
      }
      let deadline = ContinuousClock.now.advanced(by: patience)
      while station.rootHandler!.publishers.count == 0, ContinuousClock.now < deadline { await Task.yield() }
    }
    // The Station is gone: its observers' streams end, its effect is cancelled and freed.
    #expect(weakStation == nil)
    await statesEnded.wait()
    await eventsEnded.wait()
    // The effect's task ends once it has seen its cancellation; then nothing holds the handler.
    let deadline = ContinuousClock.now.advanced(by: patience)
    while weakHandler != nil, ContinuousClock.now < deadline { await Task.yield() }
    #expect(weakHandler == nil)
    #expect(Tracked.alive.load(ordering: .relaxed) == before)
  }

  @Test func anEffectWhoseOperationStoresItsPourIsFreedOnceItEnds() async {
    // Not a `Tracked`: the test above counts those, and these tests run in parallel.
    final class Captured: Sendable {}
    let escaped = Lock<Pour<Runner.Action>?>(nil)
    weak var weakCaptured: Captured?
    do {
      let captured = Captured()
      weakCaptured = captured
      let station = Station(initialState: Runner.State()) { Runner() }
      await station.pour(
        .run(
          .run { pour in
            withExtendedLifetime(captured) {}
            escaped.withLock { $0 = pour }
          })
      ).finish()
    }
    // The pour outlives its effect; the operation, and what it captured, go with the effect's task.
    let deadline = ContinuousClock.now.advanced(by: patience)
    while weakCaptured != nil, ContinuousClock.now < deadline { await Task.yield() }
    #expect(weakCaptured == nil)
    #expect(escaped.withLock { $0 } != nil)
  }

  @Test func aDerivedValueKeepsItsStationAliveAndNothingMore() async {
    weak var weakStation: StationOf<Runner>?
    var derived: Derived<Int>?
    do {
      let station = Station(initialState: Runner.State()) { Runner() }
      weakStation = station
      derived = station.derived { $0.log.count }
    }
    #expect(weakStation != nil)
    #expect(await derived?.value == 0)
    derived = nil
    #expect(weakStation == nil)
  }

  @Test func finishedSubscriptionsLeaveNoContinuationBehind() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    for _ in 0..<100 {
      var iterator = station.observe(\.log).makeAsyncIterator()
      _ = await iterator.next()
    }
    station.pour(.record("x"))
    await station.reducePending()
    #expect(station.rootHandler!.publishers.count == 0)
  }
}
