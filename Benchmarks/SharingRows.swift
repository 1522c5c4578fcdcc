import Dripper

/// A feature holding a shared counter, and a plain one.
struct SharedCounter: Dripper {
  struct State: Sendable {
    @Shared var value: Int
    var plain = 0
  }
  enum Action: Sendable { case incrementShared, incrementPlain }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .incrementShared: state.$value.withLock { $0 += 1 }
      case .incrementPlain: state.plain += 1
      }
      return .none
    }
  }
}

/// The same counter, named by a key: `@Shared(.inMemory("counter"))`.
struct KeyedCounter: Dripper {
  struct State: Sendable {
    @Shared(.inMemory("counter")) var value = 0
  }
  enum Action: Sendable { case incrementShared }

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.$value.withLock { $0 += 1 }
      return .none
    }
  }
}

func sharingRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "sharing: `swift run -c release dripper-bench --filter sharing`"
  // A write in a reduction: the lock of the value, and the Station noting that it holds it.
  let pours = options.operations(200_000)
  let station = Station(initialState: SharedCounter.State(value: Shared(value: 0))) { SharedCounter() }
  let plain = await measure(options, operations: pours) {
    for _ in 0..<pours { station.pour(.incrementPlain) }
    await station.reducePending()
  }
  let shared = await measure(options, operations: pours) {
    for _ in 0..<pours { station.pour(.incrementShared) }
    await station.reducePending()
  }
  let keyedStation = Station(initialState: KeyedCounter.State()) { KeyedCounter() }
  let keyed = await measure(options, operations: pours) {
    for _ in 0..<pours { keyedStation.pour(.incrementShared) }
    await keyedStation.reducePending()
  }

  /// Writes `writes` values to a shared value held by `holders` observed Stations, beside 100
  /// Stations that hold another, until each holder has published the last one.
  let writes = options.operations(20_000)
  func writing(holders: Int) async -> Double {
    let source = SharedValue(0)
    let other = SharedValue(0)
    let stations = (0..<holders).map { _ in
      Station(initialState: SharedCounter.State(value: Shared(source))) { SharedCounter() }
    }
    let bystanders = (0..<100).map { _ in
      Station(initialState: SharedCounter.State(value: Shared(other))) { SharedCounter() }
    }
    var next = 0
    let time = await measure(options, operations: writes) {
      let last = next + writes
      // Each holder's observer, waiting for the last value.
      let observers = stations.map { station in
        Task {
          for await state in station.states where state.value == last { break }
        }
      }
      for station in stations { await station.reducePending() }
      for _ in 0..<writes {
        next &+= 1
        source.set(next)
      }
      for observer in observers { await observer.value }
    }
    blackHole(bystanders)
    return time
  }
  let one = await writing(holders: 1)
  let ten = await writing(holders: 10)
  let hundred = await writing(holders: 100)
  let perStation = (hundred - ten) / 90
  return [
    Row(group: group, name: "a pour that increments a plain field", nanoseconds: plain),
    Row(
      group: group, name: "a pour that increments a shared value (withLock)", nanoseconds: shared,
      baseline: "a pour that increments a plain field"),
    Row(
      group: group, name: "a pour that increments a keyed shared value (.inMemory)", nanoseconds: keyed,
      baseline: "a pour that increments a plain field"),
    Row(
      group: group, name: "a write reaching 1 observed Station (100 others hold another value)",
      nanoseconds: one),
    Row(group: group, name: "a write reaching 10 observed Stations", nanoseconds: ten),
    Row(
      group: group, name: "a write reaching 100 observed Stations", nanoseconds: hundred,
      note: "\(Report.format2(perStation)) ns per Station that holds it"),
  ]
}
