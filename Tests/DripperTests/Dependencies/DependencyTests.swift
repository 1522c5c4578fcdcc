import Synchronization
import Testing

@testable import Dripper

/// A client users would write: a live value that talks to the world, a test value that does not.
struct GreetingClient: Sendable {
  var greet: @Sendable (String) async -> String
}

enum GreetingClientKey: DependencyKey {
  static let liveValue = GreetingClient { "Hello, \($0)! (live)" }
  static let testValue = GreetingClient { "Hello, \($0)! (test)" }
}

/// A key without a test value.
enum UnimplementedKey: DependencyKey {
  static let liveValue = 42
}

extension DependencyValues {
  var greeting: GreetingClient {
    get { self[GreetingClientKey.self] }
    set { self[GreetingClientKey.self] = newValue }
  }

  var unimplemented: Int {
    get { self[UnimplementedKey.self] }
    set { self[UnimplementedKey.self] = newValue }
  }
}

/// Records the id it reads when reducing, and the id it reads in an effect.
struct IDReader: Dripper {
  @Dependency(\.uuid) var uuid

  struct State: Equatable, Sendable {
    var ids: [String] = []
  }

  enum Action: Sendable {
    case read
    case readLater(Gate)
    case record(String)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .read:
        state.ids.append("\(uuid().low)")
        return .none
      case .readLater(let gate):
        return .run { pour in
          await gate.wait()
          await pour(.record("effect \(uuid().low)"))
        }
      case .record(let entry):
        state.ids.append(entry)
        return .none
      }
    }
  }
}

@Suite struct DependencyTests {
  @Test func aStationOverridesDependencies() async {
    let station = Station(initialState: IDReader.State()) {
      IDReader()
    } withDependencies: {
      $0.uuid = .constant(UniqueID(high: 0, low: 7))
    }
    await station.pour(.read).finish()
    #expect(await station.ids == ["7"])
  }

  @Test func aSubtreeOverridesDependencies() async {
    struct Parent: Dripper {
      var body: some Dripper<IDReader.State, IDReader.Action> {
        IDReader().dependency(\.uuid, .constant(UniqueID(high: 0, low: 1)))
        IDReader()
      }
    }
    let station = Station(initialState: IDReader.State()) {
      Parent()
    } withDependencies: {
      $0.uuid = .constant(UniqueID(high: 0, low: 2))
    }
    await station.pour(.read).finish()
    #expect(await station.ids == ["1", "2"])
  }

  @Test func effectsKeepTheDependenciesInForceWhereTheyWereCreated() async {
    struct Parent: Dripper {
      var body: some Dripper<IDReader.State, IDReader.Action> {
        IDReader().dependency(\.uuid, .constant(UniqueID(high: 0, low: 9)))
      }
    }
    let gate = Gate()
    let station = Station(initialState: IDReader.State()) { Parent() }
    let task = station.pour(.readLater(gate))
    await station.reducePending()
    // The reduction is over; the effect still runs with the subtree's dependencies.
    gate.open()
    await task.finish()
    #expect(await station.ids == ["effect 9"])
  }

  @Test func twoStationsRunningAtOnceNeverSeeEachOthersDependencies() async {
    let stations = (0..<8).map { index in
      Station(initialState: IDReader.State()) {
        IDReader()
      } withDependencies: {
        $0.uuid = .constant(UniqueID(high: 0, low: UInt64(index)))
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for station in stations {
        group.addTask {
          for _ in 0..<200 { station.pour(.read) }
          await station.pour(.read).finish()
        }
      }
    }
    for (index, station) in stations.enumerated() {
      #expect(await station.ids == Array(repeating: "\(index)", count: 201))
    }
  }

  @Test func stationsStartFromTheDependenciesWhereTheyAreCreated() async {
    let station = withDependencies {
      $0.greeting = GreetingClient { "Hi, \($0)" }
    } operation: {
      Station(initialState: IDReader.State()) { IDReader() }
    }
    #expect(await station.rootHandler!.dependencies.greeting.greet("you") == "Hi, you")
  }

  @Test func liveAndTestContextsResolveTheirValues() async {
    var live = DependencyValues()
    #expect(await live.greeting.greet("a") == "Hello, a! (live)")
    live.context = .test
    #expect(await live.greeting.greet("a") == "Hello, a! (test)")
  }

  @Test func anUnimplementedTestValueIsReported() {
    let sink = DiagnosticsSink()
    var values = DependencyValues(context: .test)
    sink.install(&values)
    let value = withDependencies {
      $0 = values
    } operation: {
      DependencyValues.current.unimplemented
    }
    #expect(value == 42)
    #expect(sink.all.map(\.kind) == [.unimplementedDependency])
    #expect(
      sink.all.map(\.message) == [
        "unimplemented dependency 'UnimplementedKey' used in a test; give its key a 'testValue' or "
          + "override it for the test"
      ])
  }

  @Test func builtInTestValuesArePredictable() {
    let values = DependencyValues(context: .test)
    #expect(values.uuid().uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(values.uuid().uuidString == "00000000-0000-0000-0000-000000000001")
    let rolls = (0..<5).map { _ in values.random.int(in: 1...6) }
    let again = DependencyValues(context: .test)
    #expect((0..<5).map { _ in again.random.int(in: 1...6) } == rolls)
  }

  @Test func anUnimplementedClockIsReportedAndSleepsAtOnce() async throws {
    let sink = DiagnosticsSink()
    var values = DependencyValues(context: .test)
    sink.install(&values)
    try await withDependencies {
      $0 = values
    } operation: {
      try await DependencyValues.current.clock.sleep(for: .seconds(60))
    }
    #expect(sink.all.map(\.kind) == [.unimplementedDependency])
    #expect(
      sink.all.map(\.message) == [
        "unimplemented dependency 'clock' used in a test; set one, for example "
          + "'$0.clock = TestClock()' or 'ImmediateClock()'"
      ])
  }

  @Test func anUnimplementedDateIsReported() {
    let sink = DiagnosticsSink()
    var values = DependencyValues(context: .test)
    sink.install(&values)
    let now = withDependencies {
      $0 = values
    } operation: {
      DependencyValues.current.date.now
    }
    #expect(now == Timestamp(secondsSince1970: 0))
    #expect(
      sink.all.map(\.message) == [
        "unimplemented dependency 'date' used in a test; set one, for example "
          + "'$0.date = .constant(Timestamp(secondsSince1970: 0))'"
      ])
  }
}

@Suite struct BuiltInValueTests {
  @Test func uniqueIDsRoundTripThroughText() throws {
    var generator = RandomGenerator.seeded(1)
    let id = UniqueID(randomUsing: &generator)
    #expect(UniqueID(uuidString: id.uuidString) == id)
    #expect(UniqueID(uuidString: id.uuidString.lowercased()) == id)
    #expect(id.uuidString.count == 36)
    // Version 4, variant 1.
    #expect(Array(id.uuidString)[14] == "4")
    #expect("89AB".contains(Array(id.uuidString)[19]))
  }

  @Test(arguments: ["", "nope", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5G"])
  func malformedUniqueIDsAreRejected(_ text: String) {
    #expect(UniqueID(uuidString: text) == nil)
  }

  @Test func uniqueIDBytesFollowTheirText() {
    let id = UniqueID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    #expect(id.uuid.0 == 0xE6)
    #expect(id.uuid.15 == 0x5F)
  }

  @Test(arguments: [
    (0.0, "1970-01-01T00:00:00.000Z"),
    (1_795_000_000.25, "2026-11-18T11:06:40.250Z"),
    (951_782_400, "2000-02-29T00:00:00.000Z"),
    (-1, "1969-12-31T23:59:59.000Z"),
  ])
  func timestampsPrintInISO8601(seconds: Double, text: String) {
    #expect(Timestamp(secondsSince1970: seconds).description == text)
  }

  @Test func seededGeneratorsRepeatAndSystemOnesDoNot() {
    let first = (0..<8).map { _ in RandomGenerator.seeded(42).int(in: 0...1_000_000) }
    let second = (0..<8).map { _ in RandomGenerator.seeded(42).int(in: 0...1_000_000) }
    #expect(first == second)
    let system = RandomGenerator.system
    #expect(Set((0..<8).map { _ in system.int(in: 0...Int.max) }).count > 1)
  }
}
