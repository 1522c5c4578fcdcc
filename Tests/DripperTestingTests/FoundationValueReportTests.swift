import Dripper
import DripperTesting
import Foundation
import Testing

/// A feature whose actions and state carry Foundation values, the way a TCA app's do: failures
/// print them as values (`URL(…)`, `UUID(…)`, `Date(…)`, `Data(…)`), never as their storage.
private struct Browser: Dripper {
  struct State: Equatable, Sendable {
    var visited: [URL] = []
    var session = UUID(0)
    var openedAt = Date(timeIntervalSince1970: 0)
    var page = Data()
  }
  enum Action: Equatable, Sendable {
    case open(URL)
    case loaded(URL, Data)
  }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .open(let url):
        state.visited.append(url)
        return .send(.loaded(url, Data([0xCA, 0xFE])))
      case .loaded(_, let page):
        state.page = page
        return .none
      }
    }
  }
}

@Suite struct FoundationValueReportTests {
  private let home = URL(string: "https://example.com/home")!
  private let about = URL(string: "https://example.com/about")!

  @Test func anActionWithAURLIsPrintedWholeWhenAnotherArrives() async {
    let station = TestStation(initialState: Browser.State()) { Browser() }
    await station.pour(.open(home)) { $0.visited = [self.home] }
    await withExpectedFailure {
      await station.receive(.loaded(about, Data())) { $0.page = Data([0xCA, 0xFE]) }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        Expected to receive .loaded(URL(https://example.com/about), Data(0 bytes)), but received .loaded(URL(https://example.com/home), Data(2 bytes: cafe)).
        Received, not asserted:
          .loaded(URL(https://example.com/home), Data(2 bytes: cafe))
        The closest (- expected, + received):
        - .loaded(URL(https://example.com/about), Data(0 bytes))
        + .loaded(URL(https://example.com/home), Data(2 bytes: cafe))
        """
      ]
    }
    await station.finish()
  }

  @Test func aWrongStateWithFoundationValuesDiffsAsValues() async {
    let station = TestStation(initialState: Browser.State()) { Browser() }
    await withExpectedFailure {
      await station.pour(.open(home)) { $0.visited = [self.about] }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        The state after pouring .open(URL(https://example.com/home)) is not what was expected (- expected, + actual):
          Browser.State(
        -   visited: [[0]: URL(https://example.com/about)]
        +   visited: [[0]: URL(https://example.com/home)]
            session: UUID(00000000-0000-0000-0000-000000000000)
            openedAt: Date(1970-01-01T00:00:00.000Z)
          … (2 unchanged)
        """
      ]
    }
    await station.skipReceivedActions()
    await station.finish()
  }

  @Test func aReceiveByCasePathSaysWhatArrivedInstead() async {
    let station = TestStation(initialState: Browser.State()) { Browser() }
    await station.pour(.open(home)) { $0.visited = [self.home] }
    await withExpectedFailure {
      await station.receive(.open)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        Expected to receive an action of its case, but received .loaded(URL(https://example.com/home), Data(2 bytes: cafe)).
        Received, not asserted:
          .loaded(URL(https://example.com/home), Data(2 bytes: cafe))
        """
      ]
    }
    await station.finish()
  }

  @Test func anUnassertedActionWithAURLIsPrintedWhole() async {
    await withExpectedFailure {
      let station = TestStation(initialState: Browser.State()) { Browser() }
      await station.pour(.open(home)) { $0.visited = [self.home] }
      await station.finish()
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        1 action was received but not asserted:
          .loaded(URL(https://example.com/home), Data(2 bytes: cafe))
        """
      ]
    }
  }
}

extension CasePath<Browser.Action, URL> {
  fileprivate static var open: Self {
    Self(Browser.Action.open) { if case .open(let url) = $0 { url } else { nil } }
  }
}
