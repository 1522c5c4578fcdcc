import Dripper
import DripperTesting
import Foundation
import Synchronization
import Testing

/// A screen of a stack, with one field and no payload cases: the shapes a diff must render.
enum Page: Equatable, Sendable {
  case list
  case detail(Detail)

  struct Detail: Equatable, Sendable { var title: String }
}

/// A feature holding a stack, a self-dismissing feature, and state made with a dependency.
struct Navigator: Dripper {
  struct State: Equatable, Sendable {
    var path = StackState<Page>()
    var count = 0
    var id: UUID

    init() {
      @Dependency(\.uuid) var uuid
      id = uuid()
    }
  }
  enum Action: Equatable, Sendable {
    case push(Page)
    case increase
    case closeTapped
    case closeAfterWork
    case tick
  }

  @Dependency(\.dismiss) var dismiss
  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .push(let screen):
        state.path.append(screen)
        return .none
      case .increase:
        state.count += 1
        return .none
      case .closeTapped:
        return .run { _ in await dismiss() }
      case .closeAfterWork:
        return .merge(
          .run { pour in
            while true {
              try await clock.sleep(for: .seconds(1))
              await pour(.tick)
            }
          },
          .run { _ in await dismiss() })
      case .tick:
        state.count += 10
        return .none
      }
    }
  }
}

/// What a failing assertion reports, and when an assertion runs (issue 40).
@Suite struct HarnessExactnessTests {
  private func navigator(failures: FailureLog? = nil) -> TestStation<Navigator.State, Navigator.Action> {
    TestStation(
      initialState: Navigator.State(), dripper: { Navigator() },
      withDependencies: {
        $0.uuid = .incrementing
        $0.clock = TestClock()
      }, reporter: failures?.reporter ?? .automatic)
  }

  @Test func aWrongStackIsReportedWithADiffNotACrash() async {
    let station = navigator()
    await station.pour(.push(.list)) { $0.path.append(.list) }
    await withExpectedFailure {
      await station.pour(.push(.detail(.init(title: "a")))) {
        $0.path.append(.detail(.init(title: "b")))
      }
    } matching: { issue in
      mentions("#1: .detail(")(issue) && mentions("-       Page.Detail(title: \"b\")")(issue)
        && mentions("+       Page.Detail(title: \"a\")")(issue)
    }
    await station.finish()
  }

  /// TCA's non-exhaustive `TestStore` runs the closure once, on the state the action left.
  @Test func aNonExhaustiveAssertionRunsOnceOnTheStateAfter() async {
    let station = navigator()
    station.exhaustivity = .off
    let runs = Lock<[Int]>([])
    await station.pour(.increase) { state in
      runs.withLock { $0.append(state.count) }
      #expect(state.count == 1)
    }
    #expect(runs.withLock { $0 } == [1])
    await station.finish()
  }

  /// The root feature may dismiss itself (TCA's RecordMeeting and SyncUpDetail delete tests).
  @Test func theRootFeatureDismissesItself() async {
    let failures = FailureLog()
    do {
      let station = navigator(failures: failures)
      #expect(!station.isDismissed)
      await station.pour(.closeTapped)
      #expect(station.isDismissed)
    }
    #expect(failures.all == [])
  }

  @Test func aDismissalCancelsTheRootFeaturesEffects() async {
    let failures = FailureLog()
    do {
      let station = navigator(failures: failures)
      await station.pour(.closeAfterWork)
      #expect(station.isDismissed)
      await station.finish()
    }
    #expect(failures.all == [])
  }

  @Test func aPourAfterTheDismissalFails() async {
    let station = navigator()
    await station.pour(.closeTapped)
    await withExpectedFailure {
      await station.pour(.increase)
    } matching: {
      mentions("dismissed")($0)
    }
  }

  /// TCA's `TestStore(initialState:)` builds the state within the test's dependencies.
  @Test func theInitialStateIsMadeWithTheTestsDependencies() async {
    let station = navigator()
    #expect(station.state.id == UUID(0))
    await station.finish()
  }
}
