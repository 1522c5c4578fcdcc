import Dripper

struct Greeting: Sendable { let text: String }

enum GreetingKey: DependencyKey {
  static let liveValue = Greeting(text: "hello")
  static let testValue = Greeting(text: "test")
}

extension DependencyValues {
  var greeting: Greeting {
    get { self[GreetingKey.self] }
    set { self[GreetingKey.self] = newValue }
  }
}

/// Counts; `mode` says whether it declares dependencies, and whether it reads one each time.
struct Reader: Dripper {
  enum Mode: Sendable { case none, declaresButNeverReads, readsOne }

  @Dependency(\.greeting) var greeting
  @Dependency(\.uuid) var uuid
  let mode: Mode

  struct State: Sendable { var count = 0 }
  enum Action: Sendable { case increase }

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count &+= mode == .readsOne ? greeting.text.utf8.count : 1
      return .none
    }
  }
}

/// The same counter without any dependency.
struct Plain: Dripper {
  struct State: Sendable { var count = 0 }
  enum Action: Sendable { case increase }

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count &+= 1
      return .none
    }
  }
}

func dependencyRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "dependencies: `swift run -c release dripper-bench --filter dependencies`"
  let n = options.operations(1_000_000)
  var rows: [Row] = []

  func pours<State, Action>(_ station: Station<State, Action>, _ action: Action, awaited: Bool) -> () async ->
    Void
  {
    {
      if awaited {
        for _ in 0..<n { await station.pour(action).finish() }
      } else {
        var last: PourTask?
        for _ in 0..<n { last = station.pour(action) }
        await last?.finish()
      }
    }
  }

  for awaited in [false, true] {
    let way = awaited ? "awaited pour+finish" : "synchronous pours"
    let plainRow = "\(way), a reducer without dependencies"
    let times = await measureInterleaved(
      options, operations: n,
      [
        pours(Station(initialState: Plain.State()) { Plain() }, .increase, awaited: awaited),
        pours(
          Station(initialState: Reader.State()) { Reader(mode: .declaresButNeverReads) }, .increase,
          awaited: awaited),
        pours(Station(initialState: Reader.State()) { Reader(mode: .readsOne) }, .increase, awaited: awaited),
        pours(
          Station(initialState: Plain.State()) {
            Plain()
          } withDependencies: {
            $0.greeting = Greeting(text: "hi")
          },
          .increase, awaited: awaited),
      ])
    rows.append(Row(group: group, name: plainRow, nanoseconds: times[0]))
    rows.append(
      Row(
        group: group, name: "\(way), @Dependency properties never read", nanoseconds: times[1],
        baseline: plainRow, target: 1.1))
    rows.append(
      Row(
        group: group, name: "\(way), one dependency read per action", nanoseconds: times[2],
        baseline: plainRow,
        note: "a read costs \(Report.format2(times[2] - times[0])) ns"))
    rows.append(
      Row(
        group: group, name: "\(way), a Station with overridden dependencies, none read",
        nanoseconds: times[3], baseline: plainRow))
  }
  return rows
}
