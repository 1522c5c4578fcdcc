import Dripper
import DripperTesting
import Foundation
import Testing

@Suite struct SharingFromManyThreadsTests {
  /// Stations changing the shared value from many OS threads at once all end at the value the
  /// last write left. Before, a delivery could be reduced after a newer local change and leave
  /// its Station on an older value than everyone else's.
  @Test func stationsWrittenFromManyThreadsAgreeAtTheEnd() async {
    for _ in 0..<5 {
      let shared = SharedValue(ListSettings())
      let stations = (0..<4).map { _ in
        let station = Station(initialState: Preferences.State()) { Preferences(shared: shared) }
        station.share(\.settings, with: shared, action: .settingsChanged)
        return station
      }
      let threads = 8
      let perThread = 300
      let finished = DispatchGroup()
      for thread in 0..<threads {
        finished.enter()
        Thread {
          for index in 0..<perThread {
            stations[(thread + index) % stations.count].pour(.sortBy("\(thread)-\(index)"))
          }
          finished.leave()
        }.start()
      }
      await withCheckedContinuation { continuation in
        finished.notify(queue: .global()) { continuation.resume() }
      }
      // Every local change, then every delivery it made: deliveries make no writes of their own.
      for station in stations { await station.reducePending() }
      for station in stations { await station.reducePending() }
      for station in stations {
        #expect(await station.state.settings == shared.value)
      }
    }
  }
}
