import Synchronization
import Testing

@testable import Dripper

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
      let watched = Station(initialState: GroupedCount.State()) { GroupedCount() }
      await watched.pour(.add(2)).finish()
      // A Station with observers of its own reports to those alone.
      let own = Station(initialState: GroupedCount.State(), observers: [DripperObserver()]) { GroupedCount() }
      await own.pour(.add(3)).finish()
      DefaultObserver.set(nil)
      let after = Station(initialState: GroupedCount.State()) { GroupedCount() }
      await after.pour(.add(4)).finish()
      precondition(seen.withLock { $0 } == ["add(2) State(count: 2)"], "\(seen.withLock { $0 })")
    }
  }
}
