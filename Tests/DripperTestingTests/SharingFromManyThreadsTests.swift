import Dripper
import DripperTesting
import Foundation
import Testing

/// A feature holding settings shared with others.
struct Preferences: Dripper {
  struct State: Equatable, Sendable {
    @Shared var settings: ListSettings
  }
  enum Action: Equatable, Sendable {
    case sortBy(String)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .sortBy(let sort): state.$settings.withLock { $0.sort = sort }
      }
      return .none
    }
  }
}

@Suite struct SharingFromManyThreadsTests {
  /// Stations changing one shared value from many OS threads at once all read the value the last
  /// write left, and so does everyone else: there is one value, not a copy per Station.
  @Test func stationsWrittenFromManyThreadsAgreeAtTheEnd() async {
    for _ in 0..<5 {
      let shared = SharedValue(ListSettings())
      let stations = (0..<4).map { _ in
        Station(initialState: Preferences.State(settings: Shared(shared))) { Preferences() }
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
      for station in stations { await station.reducePending() }
      for station in stations {
        #expect(await station.state.settings == shared.value)
      }
    }
  }
}
