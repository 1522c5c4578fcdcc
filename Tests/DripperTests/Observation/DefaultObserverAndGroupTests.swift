import Synchronization
import Testing

@testable import Dripper

/// A counter that takes a message from a group.
private struct Count: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable {
    case add(Int)
    case reset
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount): state.count += amount
      case .reset: state.count = 0
      }
      return .none
    }
  }
}

private enum Event: Sendable, Equatable { case bump, logOut }

@Suite struct StationGroupTests {
  @Test func aDispatchReachesEveryStationThatTakesIt() async {
    let group = StationGroup<Event>()
    let first = Station(initialState: Count.State(count: 5)) { Count() }
    let second = Station(initialState: Count.State(count: 7)) { Count() }
    let deaf = Station(initialState: Count.State(count: 9)) { Count() }
    group.add(first) { $0 == .logOut ? .reset : .add(1) }
    group.add(second) { $0 == .logOut ? .reset : .add(10) }
    let membership = group.add(deaf) { _ in .reset }
    group.remove(membership)

    await group.dispatch(.bump).finish()
    #expect(await first.state.count == 6)
    #expect(await second.state.count == 17)
    await group.dispatch(.logOut).finish()
    #expect(await first.state.count == 0)
    #expect(await second.state.count == 0)
    #expect(await deaf.state.count == 9)
  }

  @Test func aReleasedStationLeavesTheGroup() async {
    let group = StationGroup<Event>()
    var station: StationOf<Count>? = Station(initialState: Count.State()) { Count() }
    group.add(station!) { _ in .add(1) }
    #expect(group.count == 1)
    station = nil
    let dispatched = group.dispatch(.bump)
    #expect(dispatched.tasks.isEmpty)
    #expect(group.count == 0)
  }
}

@Suite struct DefaultObserverTests {
  /// In a process of its own: the default observer is global, and would watch every Station the
  /// other tests create meanwhile.
  @Test func stationsWithoutObserversReportToTheDefault() async {
    await #expect(processExitsWith: .success) {
      let seen = Lock<[String]>([])
      DefaultObserver.set(
        DripperObserver(didReduce: { transition in
          seen.withLock { $0.append("\(transition.action) \(transition.new)") }
        }))
      let watched = Station(initialState: Count.State()) { Count() }
      await watched.pour(.add(2)).finish()
      // A Station with observers of its own reports to those alone.
      let own = Station(initialState: Count.State(), observers: [DripperObserver()]) { Count() }
      await own.pour(.add(3)).finish()
      DefaultObserver.set(nil)
      let after = Station(initialState: Count.State()) { Count() }
      await after.pour(.add(4)).finish()
      precondition(seen.withLock { $0 } == ["add(2) State(count: 2)"], "\(seen.withLock { $0 })")
    }
  }
}
