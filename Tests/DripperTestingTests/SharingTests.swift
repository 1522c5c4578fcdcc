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

@Suite struct SharedPersistenceTests {
  private func temporaryPath() -> String {
    NSTemporaryDirectory() + "dripper-shared-\(UUID().uuidString).json"
  }

  private func file(_ path: String) -> SharedPersistence<ListSettings> {
    .file(
      at: path, encode: { Array(try JSONEncoder().encode($0)) },
      decode: { try JSONDecoder().decode(ListSettings.self, from: Data($0)) })
  }

  @Test func aFileKeepsTheValueAcrossRuns() async throws {
    let path = temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = SharedValue(ListSettings(), persistence: file(path))
    #expect(first.loadFailure == nil)
    first.set(ListSettings(sort: "title"))
    let error = await first.flush()
    #expect(error == nil)
    let second = SharedValue(ListSettings(), persistence: file(path))
    #expect(second.value == ListSettings(sort: "title"))
    // Written through a temporary file, which is gone.
    let directory = (path as NSString).deletingLastPathComponent
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix((path as NSString).lastPathComponent + ".tmp") }
    #expect(leftovers.isEmpty)
  }

  @Test func aCorruptFileIsNotLoadedOverTheInitialValue() async throws {
    let path = temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
    let shared = SharedValue(ListSettings(sort: "initial"), persistence: file(path))
    #expect(shared.value == ListSettings(sort: "initial"))
    #expect(shared.loadFailure?.contains("could not be decoded") == true)
    // The file stays as it was until the value changes.
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ not json")
  }

  /// Before, a write renamed the new file over the link, and the file it pointed to kept the
  /// old value.
  @Test func aWriteThroughASymbolicLinkUpdatesItsTarget() async throws {
    let target = temporaryPath()
    let link = temporaryPath()
    defer {
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.removeItem(atPath: link)
    }
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let shared = SharedValue(ListSettings(), persistence: file(link))
    shared.set(ListSettings(sort: "title"))
    let error = await shared.flush()
    #expect(error == nil)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    #expect(SharedValue(ListSettings(), persistence: file(target)).value == ListSettings(sort: "title"))
  }

  @Test func aFileThatCannotBeWrittenIsReportedByFlush() async {
    let shared = SharedValue(ListSettings(), persistence: file("/nonexistent-dir/settings.json"))
    shared.set(ListSettings(sort: "title"))
    let error = await shared.flush()
    #expect(error?.message.contains("cannot write /nonexistent-dir/settings.json") == true)
  }
}

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
