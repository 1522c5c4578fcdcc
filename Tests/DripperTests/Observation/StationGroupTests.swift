import Synchronization
import Testing

@testable import Dripper

/// A counter that takes a message from a group.
struct GroupedCount: Dripper {
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

enum GroupEvent: Sendable, Equatable { case bump, logOut }

@Suite struct StationGroupTests {
  @Test func aDispatchReachesEveryStationThatTakesIt() async {
    let group = StationGroup<GroupEvent>()
    let first = Station(initialState: GroupedCount.State(count: 5)) { GroupedCount() }
    let second = Station(initialState: GroupedCount.State(count: 7)) { GroupedCount() }
    let deaf = Station(initialState: GroupedCount.State(count: 9)) { GroupedCount() }
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
    let group = StationGroup<GroupEvent>()
    var station: StationOf<GroupedCount>? = Station(initialState: GroupedCount.State()) { GroupedCount() }
    group.add(station!) { _ in .add(1) }
    #expect(group.count == 1)
    station = nil
    let dispatched = group.dispatch(.bump)
    #expect(dispatched.tasks.isEmpty)
    #expect(group.count == 0)
  }
}
