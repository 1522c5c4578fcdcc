import Dripper
import DripperTesting
import Foundation
import Testing

struct ListSettings: Equatable, Sendable, Codable {
  var sort = "date"
  var showDone = true
}

/// A feature holding settings shared with others.
struct Preferences: Dripper {
  struct State: Equatable, Sendable {
    var settings = ListSettings()
    /// The shared values delivered to this Station.
    var deliveries = 0
  }
  enum Action: Equatable, Sendable {
    case sortBy(String)
    case settingsChanged(ListSettings)
  }

  let shared: SharedValue<ListSettings>

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .sortBy(let sort): state.settings.sort = sort
      case .settingsChanged: state.deliveries += 1
      }
      return .none
    }
    .sharing(\.settings, with: shared, action: .settingsChanged)
  }
}

extension CasePath<Preferences.Action, ListSettings> {
  static var settingsChanged: Self {
    Self(Preferences.Action.settingsChanged) { if case .settingsChanged(let s) = $0 { s } else { nil } }
  }
}

@Suite struct SharingTests {
  @Test func aChangeInOneStationReachesTheOthersAsAReduction() async {
    let shared = SharedValue(ListSettings(sort: "title"))
    let first = Station(initialState: Preferences.State()) { Preferences(shared: shared) }
    let second = Station(initialState: Preferences.State()) { Preferences(shared: shared) }
    first.share(\.settings, with: shared, action: .settingsChanged)
    second.share(\.settings, with: shared, action: .settingsChanged)

    await first.pour(.sortBy("size")).finish()
    #expect(shared.value.sort == "size")
    // Delivered to the second while the first reduced: the read reduces it first.
    let secondState = await second.state
    #expect(secondState.settings.sort == "size")
    #expect(secondState.deliveries == 2)
    // The first started at the shared value and was not sent back its own change.
    let firstState = await first.state
    #expect(firstState.settings.sort == "size")
    #expect(firstState.deliveries == 1)
  }

  @Test func aTestStationAssertsSharedChangesExhaustively() async {
    let shared = SharedValue(ListSettings())
    let station = TestStation(initialState: Preferences.State()) { Preferences(shared: shared) }
    station.share(\.settings, with: shared, action: .settingsChanged)
    await station.receive(.settingsChanged(ListSettings())) { $0.deliveries = 1 }

    shared.set(ListSettings(sort: "title", showDone: false))
    await station.receive(.settingsChanged(ListSettings(sort: "title", showDone: false))) {
      $0.settings = ListSettings(sort: "title", showDone: false)
      $0.deliveries = 2
    }
    await station.pour(.sortBy("size")) { $0.settings.sort = "size" }
    #expect(shared.value == ListSettings(sort: "size", showDone: false))
    await station.finish()
  }

  @Test func aReleasedStationLeavesAtTheNextWrite() async {
    let shared = SharedValue(ListSettings())
    var station: StationOf<Preferences>? = Station(initialState: Preferences.State()) {
      Preferences(shared: shared)
    }
    station?.share(\.settings, with: shared, action: .settingsChanged)
    #expect(shared.subscriberCount == 1)
    station = nil
    shared.set(ListSettings(sort: "title"))
    #expect(shared.subscriberCount == 0)
  }
}
