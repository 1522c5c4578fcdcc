import Dripper
import DripperTesting
import Testing

/// Search as you type: each query change debounces a search, and a new search cancels the one in
/// flight. The effects' tests of the time toolkit, written the way users write theirs.
struct Search: Dripper {
  struct State: Equatable, Sendable {
    var query = ""
    var results: [String] = []
    var isSearching = false
  }

  enum Action: Equatable, Sendable {
    case queryChanged(String)
    case search(String)
    case resultsLoaded([String])
  }

  struct SearchID: Hashable, Sendable {}

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .queryChanged(let query):
        state.query = query
        return .send(.search(query)).debounce(id: SearchID(), for: .milliseconds(300), clock: clock)
      case .search(let query):
        state.isSearching = true
        return .run { pour in
          try await clock.sleep(for: .milliseconds(500))  // the server's round trip
          await pour(.resultsLoaded([query + " 1", query + " 2"]))
        }
        .cancellable(id: SearchID(), cancelInFlight: true)
      case .resultsLoaded(let results):
        state.isSearching = false
        state.results = results
        return .none
      }
    }
  }
}

@Suite struct SearchTests {
  private func makeStation() -> (TestStation<Search.State, Search.Action>, TestClock) {
    let clock = TestClock()
    let station = TestStation(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.clock = clock
    }
    return (station, clock)
  }

  @Test func typingDebouncesTheSearch() async {
    let (station, clock) = makeStation()
    await station.pour(.queryChanged("m")) { $0.query = "m" }
    await clock.advance(by: .milliseconds(200))
    await station.pour(.queryChanged("mi")) { $0.query = "mi" }
    await clock.advance(by: .milliseconds(299))
    // Nothing yet: the second change restarted the wait.
    await clock.advance(by: .milliseconds(1))
    await station.receive(.search("mi")) { $0.isSearching = true }
    await clock.advance(by: .milliseconds(500))
    await station.receive(.resultsLoaded(["mi 1", "mi 2"])) {
      $0.isSearching = false
      $0.results = ["mi 1", "mi 2"]
    }
    await station.finish()
  }

  @Test func aNewSearchCancelsTheOneInFlight() async {
    let (station, clock) = makeStation()
    await station.pour(.search("a")) { $0.isSearching = true }
    await clock.advance(by: .milliseconds(400))
    await station.pour(.search("ab"))
    await clock.advance(by: .milliseconds(500))
    // Only the second search's results come back.
    await station.receive(.resultsLoaded(["ab 1", "ab 2"])) {
      $0.isSearching = false
      $0.results = ["ab 1", "ab 2"]
    }
    await station.finish()
  }
}
