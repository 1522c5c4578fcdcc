import Dripper
import DripperTesting
import Foundation
import Testing

/// Two tabs that each declare the statistics on their own, by key: TCA's `@Shared(.inMemory(…))`.
private struct Tabs: Dripper {
  struct CounterTab: Dripper {
    struct State: Equatable, Sendable {
      @Shared(.inMemory("stats")) var stats = Stats()
    }
    enum Action: Equatable, Sendable { case increment }
    var body: some DripperOf<Self> {
      Drip { state, _ in
        state.$stats.withLock { $0.count += 1 }
        return .none
      }
    }
  }

  struct ProfileTab: Dripper {
    struct State: Equatable, Sendable {
      @Shared(.inMemory("stats")) var stats = Stats(count: 100)
      var shown: Int?
    }
    enum Action: Equatable, Sendable { case show, reset }
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .show: state.shown = state.stats.count
        case .reset: state.$stats.withLock { $0.count = 0 }
        }
        return .none
      }
    }
  }

  struct State: Equatable, Sendable {
    var counter = CounterTab.State()
    var profile = ProfileTab.State()
    /// A tab made by a reduction, after the Station started.
    var later: ProfileTab.State?
  }
  enum Action: Equatable, Sendable {
    case counter(CounterTab.Action)
    case profile(ProfileTab.Action)
    case later(ProfileTab.Action)
    case openLater
  }

  var body: some DripperOf<Self> {
    Scope(state: \.counter, action: CasePath(Action.counter)) { CounterTab() }
    Scope(state: \.profile, action: CasePath(Action.profile)) { ProfileTab() }
    Drip { state, action in
      if action == .openLater { state.later = ProfileTab.State() }
      return .none
    }
    .ifLet(\.later, action: CasePath(Action.later)) { ProfileTab() }
  }
}

@Suite struct SharedKeyTests {
  /// Two features naming one key hold one value; the first holder's initial value starts it (the
  /// profile's 100 is ignored), as swift-sharing's InMemoryTests.mutation pins.
  @Test func twoFeaturesNamingOneKeyHoldOneValue() async {
    let station = TestStation(initialState: Tabs.State()) { Tabs() }
    #expect(station.state.profile.stats.count == 0)
    await station.pour(.counter(.increment)) { $0.counter.$stats.withLock { $0.count = 1 } }
    #expect(station.state.profile.stats.count == 1)
    await station.pour(.profile(.show)) { $0.profile.shown = 1 }
    await station.pour(.profile(.reset)) { $0.profile.$stats.withLock { $0.count = 0 } }
    #expect(station.state.counter.stats.count == 0)
  }

  /// State a reduction makes resolves the key in its Station at once: the later tab reads the
  /// value the first two hold.
  @Test func stateMadeByAReductionFindsTheStationsValue() async {
    let station = TestStation(initialState: Tabs.State()) { Tabs() }
    await station.pour(.counter(.increment)) { $0.counter.$stats.withLock { $0.count = 1 } }
    await station.pour(.openLater) { $0.later = Tabs.ProfileTab.State() }
    await station.pour(.later(.show)) { $0.later?.shown = 1 }
    await station.pour(.later(.reset)) { $0.counter.$stats.withLock { $0.count = 0 } }
    #expect(station.state.profile.stats.count == 0)
  }

  /// Each Station has its own values: a test's TestStation starts afresh, whatever the test before
  /// it left, and two live Stations do not see each other's.
  @Test func eachStationHasItsOwnValues() async {
    for _ in 0..<2 {
      let station = TestStation(initialState: Tabs.State()) { Tabs() }
      await station.pour(.counter(.increment)) { $0.counter.$stats.withLock { $0.count = 1 } }
    }
    let first = Station(initialState: Tabs.State()) { Tabs() }
    let second = Station(initialState: Tabs.State()) { Tabs() }
    await first.pour(.counter(.increment)).finish()
    await first.pour(.counter(.increment)).finish()
    await second.pour(.counter(.increment)).finish()
    #expect(await first.state.profile.stats.count == 2)
    #expect(await second.state.profile.stats.count == 1)
  }

  /// Before its Station, a keyed value reads its initial value and writes change it; the Station
  /// starts the key with it.
  @Test func aKeyHeldBeforeItsStationKeepsWhatWasWritten() async {
    let state = Tabs.State()
    #expect(state.counter.stats.count == 0)
    state.counter.$stats.withLock { $0.count = 7 }
    #expect(state.counter.stats.count == 7)
    #expect(state.profile.stats.count == 100)
    let station = Station(initialState: state) { Tabs() }
    await station.pour(.counter(.increment)).finish()
    #expect(await station.state.profile.stats.count == 8)
  }

  /// Before its Station, writes from several threads at once are each kept: a write changes the
  /// value it read, or reads it again.
  @Test func writesBeforeItsStationFromManyThreadsAreEachKept() async {
    let state = Tabs.State()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<5_000 { state.counter.$stats.withLock { $0.count += 1 } }
        }
      }
    }
    #expect(state.counter.stats.count == 20_000)
  }

  /// The changes of a key held before its Station, asked for before it starts: the initial
  /// value's writes, then the Station's value's changes. Asking does not give the holder a value
  /// of its own: the two tabs still share one.
  @Test func changesAskedBeforeItsStationFollowTheStationsValue() async {
    let state = Tabs.State()
    var changes = state.counter.$stats.changes().makeAsyncIterator()
    #expect(await changes.next()?.count == 0)
    state.counter.$stats.withLock { $0.count = 3 }
    #expect(await changes.next()?.count == 3)
    let station = Station(initialState: state) { Tabs() }
    await station.pour(.counter(.increment)).finish()
    #expect(await station.state.profile.stats.count == 4, "the holder that was asked kept a value of its own")
    var next = await changes.next()
    if next?.count == 3 { next = await changes.next() }
    #expect(next?.count == 4)
  }

  /// Changes asked of a key no Station ever resolves end when the last holder of the key goes.
  @Test func changesOfAKeyNeverResolvedEndWithItsLastHolder() async {
    var changes = Tabs.State().counter.$stats.changes().makeAsyncIterator()
    #expect(await changes.next()?.count == 0)
    #expect(await changes.next() == nil)
  }

  /// A keyed value's changes, and a part's: the current value, then each change.
  @Test func aKeysChangesAreAStream() async {
    let station = Station(initialState: Tabs.State()) { Tabs() }
    let stats = await station.state.profile.$stats
    var whole = stats.changes().makeAsyncIterator()
    var count = stats.count.changes().makeAsyncIterator()
    #expect(await whole.next() == Stats(count: 0))
    #expect(await count.next() == 0)
    await station.pour(.counter(.increment)).finish()
    #expect(await whole.next() == Stats(count: 1))
    #expect(await count.next() == 1)
    await station.pour(.profile(.reset)).finish()
    #expect(await count.next() == 0)
    await station.pour(.counter(.increment)).finish()
    #expect(await count.next() == 1)
    // Latest first: the reset is skipped by a reader that came late.
    #expect(await whole.next() == Stats(count: 1))
  }

  /// One name with two value types: the second is reported and holds a value of its own.
  @Test func oneNameWithTwoTypesIsReported() async {
    struct Mixed: Dripper {
      struct Child: Equatable, Sendable {
        @Shared(.inMemory("stats")) var number = 5
      }
      struct State: Equatable, Sendable {
        @Shared(.inMemory("stats")) var stats = Stats()
        var child: Child?
      }
      enum Action: Equatable, Sendable { case open }
      var body: some DripperOf<Self> {
        Drip { state, _ in
          state.child = Child()
          state.child?.$number.withLock { $0 += 1 }
          return .none
        }
      }
    }
    let station = TestStation(initialState: Mixed.State()) { Mixed() }
    await withExpectedFailure {
      await station.pour(.open) { $0.child = Mixed.Child(number: 6) }
    } matching: {
      mentions("the shared key inMemory(\"stats\") names a Stats here, not a Int")($0)
    }
    #expect(station.state.stats == Stats())
  }
}

/// Settings kept in a file, by key, from two features: TCA's `@Shared(.fileStorage(url))`.
private struct SettingsScreens: Dripper {
  struct State: Equatable, Sendable {
    @Shared var list: ListSettings
    @Shared var sheet: ListSettings

    init(path: String) {
      _list = Shared(wrappedValue: ListSettings(), .fileStorage(path))
      _sheet = Shared(wrappedValue: ListSettings(), .fileStorage(URL(fileURLWithPath: path)))
    }
  }
  enum Action: Equatable, Sendable { case sort(String) }
  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .sort(let sort) = action { state.$sheet.withLock { $0.sort = sort } }
      return .none
    }
  }
}

extension SharedKeyTests {
  /// A file key is loaded as its Station starts, written after each change, and read back by the
  /// next Station; two features naming the file, by path and by URL, hold one value.
  @Test func aFileKeyIsLoadedWrittenAndReadBack() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shared-key-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("settings.json").path
    try Data(#"{"sort":"title","showDone":false}"#.utf8).write(to: URL(fileURLWithPath: path))

    let station = TestStation(initialState: SettingsScreens.State(path: path)) { SettingsScreens() }
    #expect(station.state.list == ListSettings(sort: "title", showDone: false))
    await station.pour(.sort("name")) { $0.$list.withLock { $0.sort = "name" } }
    #expect(await station.state.$sheet.flush() == nil)
    let saved = try JSONDecoder().decode(
      ListSettings.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(saved == ListSettings(sort: "name", showDone: false))

    let again = Station(initialState: SettingsScreens.State(path: path)) { SettingsScreens() }
    #expect(await again.state.list == ListSettings(sort: "name", showDone: false))
  }

  /// A file key whose file cannot be decoded starts at its initial value and says why, to the
  /// Station that resolved it as it started: the user's file is not read over in silence.
  @Test func aCorruptFileKeyIsReportedAsItsStationStarts() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shared-key-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("settings.json").path
    try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
    await withExpectedFailure {
      let station = TestStation(initialState: SettingsScreens.State(path: path)) { SettingsScreens() }
      #expect(station.state.list == ListSettings())
      await station.finish()
    } matching: {
      mentions("the shared key fileStorage(")($0) && mentions("started at its initial value")($0)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("not json".utf8))
  }
}
