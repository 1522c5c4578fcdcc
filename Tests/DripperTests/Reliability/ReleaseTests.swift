import Synchronization
import Testing

@testable import Dripper

/// What a Station holds goes when it should (issue 14): streams end with their Station even when
/// they subscribe while it is released, one-time spikes give their memory back, a removed row's
/// throttle goes with it.
@Suite struct ReleaseTests {
  @Test func anObserverSubscribingWhileItsStationIsReleasedEnds() async {
    // The slice is computed while the subscription is made: releasing the Station's last
    // reference there releases it between the check for its end and the watcher's addition.
    let holder = Lock<StationOf<Runner>?>(Station(initialState: Runner.State()) { Runner() })
    let stream = holder.withLock { $0! }.observe { state in
      holder.withLock { $0 = nil }
      return state.log.count
    }
    let ended = await withTimeout { () -> Bool in
      for await _ in stream {}
      return true
    }
    #expect(ended == true, "the stream stayed open after its Station was released")
  }

  @Test func eventsSubscribedAfterTheStationIsReleasedEnd() async {
    var station: StationOf<Runner>? = Station(initialState: Runner.State()) { Runner() }
    let handler = station!.rootHandler!
    station = nil
    let ended = await withTimeout { () -> Bool in
      for await _ in handler.events.events(of: Int.self) {}
      return true
    }
    #expect(ended == true)
  }

  @Test func aLongChainOfSendsGivesItsMemoryBack() async {
    let station = Station(initialState: Log.State()) {
      Drip<Log.State, Log.Action> { state, action in
        guard case .record(let entry) = action, let count = Int(entry), count > 0 else { return .none }
        state.entries = [entry]
        return .send(.record("\(count - 1)"))
      }
    }
    await station.pour(.record("100000")).finish()
    let capacity = await station.rootHandler!.bufferCapacities()
    #expect(capacity.followUps <= StateHandler<Log.State, Log.Action>.retainedCapacity)
  }

  @Test func aBurstOfPoursGivesItsMemoryBack() async {
    let station = Station(initialState: Log.State()) { Log() }
    for index in 0..<100_000 { station.pour(.record("\(index % 10)")) }
    await station.reducePending()
    let capacity = await station.rootHandler!.bufferCapacities()
    #expect(capacity.batch <= StateHandler<Log.State, Log.Action>.retainedCapacity)
    #expect(capacity.mailbox <= StateHandler<Log.State, Log.Action>.retainedCapacity)
  }

  @Test func aRemovedRowsThrottleWindowGoesWithIt() async {
    let clock = TestClock()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.addRow(1)).finish()
    let registry = station.rootHandler!.effects
    // A row's throttle opens a window in the row's namespace.
    await station.pour(.rows(.element(id: 1, action: .throttledIncrease(clock)))).finish()
    #expect(registry.snapshot.windows == 1)
    await station.pour(.removeRow(1)).finish()
    #expect(registry.snapshot.windows == 0)
  }
}

extension StateHandler {
  /// The capacities of the buffers a burst grows, for tests of memory given back.
  func bufferCapacities() -> (followUps: Int, batch: Int, mailbox: Int) {
    (followUps.capacity, batch.capacity, mailbox.state.withLock { $0.pending.capacity })
  }
}
