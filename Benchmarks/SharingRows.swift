import Dripper

/// A feature holding a shared counter.
struct SharedCounter: Dripper {
  struct State: Sendable { var value = 0 }
  enum Action: Sendable { case changed(Int) }

  let shared: SharedValue<Int>

  var body: some DripperOf<Self> {
    EmptyDripper()
      .sharing(
        \.value, with: shared,
        action: CasePath(Action.changed) { if case .changed(let v) = $0 { v } else { nil } })
  }
}

func sharingRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "sharing: `swift run -c release dripper-bench --filter sharing`"
  let writes = options.operations(20_000)
  /// Writes `writes` values to a shared value held by `holders` Stations, beside 100 Stations
  /// that hold another.
  func writing(holders: Int) async -> Double {
    let shared = SharedValue(0)
    let other = SharedValue(0)
    let action = CasePath(SharedCounter.Action.changed) { if case .changed(let v) = $0 { v } else { nil } }
    let stations = (0..<holders).map { _ in
      let station = Station(initialState: SharedCounter.State()) { SharedCounter(shared: shared) }
      station.share(\.value, with: shared, action: action)
      return station
    }
    let bystanders = (0..<100).map { _ in
      let station = Station(initialState: SharedCounter.State()) { SharedCounter(shared: other) }
      station.share(\.value, with: other, action: action)
      return station
    }
    for station in stations + bystanders { await station.reducePending() }
    var next = 0
    let time = await measure(options, operations: writes) {
      for _ in 0..<writes {
        next &+= 1
        shared.set(next)
      }
      for station in stations { await station.reducePending() }
    }
    blackHole(bystanders)
    return time
  }
  let one = await writing(holders: 1)
  let ten = await writing(holders: 10)
  let hundred = await writing(holders: 100)
  let perStation = (hundred - ten) / 90
  return [
    Row(group: group, name: "a write reaching 1 Station (100 others hold another value)", nanoseconds: one),
    Row(group: group, name: "a write reaching 10 Stations", nanoseconds: ten),
    Row(
      group: group, name: "a write reaching 100 Stations", nanoseconds: hundred,
      note: "\(Report.format2(perStation)) ns per Station that holds it"),
  ]
}
