import Foundation
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

  /// The number `UUID(n)` was made from.
  static func number(_ id: UUID) -> String {
    String(UInt64(id.uuidString.suffix(12), radix: 16) ?? 0)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .read:
        state.ids.append(Self.number(uuid()))
        return .none
      case .readLater(let gate):
        return .run { pour in
          await gate.wait()
          await pour(.record("effect \(Self.number(uuid()))"))
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
      $0.uuid = .constant(UUID(7))
    }
    await station.pour(.read).finish()
    #expect(await station.ids == ["7"])
  }

  @Test func aSubtreeOverridesDependencies() async {
    struct Parent: Dripper {
      var body: some Dripper<IDReader.State, IDReader.Action> {
        IDReader().dependency(\.uuid, .constant(UUID(1)))
        IDReader()
      }
    }
    let station = Station(initialState: IDReader.State()) {
      Parent()
    } withDependencies: {
      $0.uuid = .constant(UUID(2))
    }
    await station.pour(.read).finish()
    #expect(await station.ids == ["1", "2"])
  }

  @Test func effectsKeepTheDependenciesInForceWhereTheyWereCreated() async {
    struct Parent: Dripper {
      var body: some Dripper<IDReader.State, IDReader.Action> {
        IDReader().dependency(\.uuid, .constant(UUID(9)))
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
        $0.uuid = .constant(UUID(index))
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
    #expect(now == Date(timeIntervalSince1970: 0))
    #expect(
      sink.all.map(\.message) == [
        "unimplemented dependency 'date' used in a test; set one, for example "
          + "'$0.date = .constant(Date(timeIntervalSince1970: 0))'"
      ])
  }
}
