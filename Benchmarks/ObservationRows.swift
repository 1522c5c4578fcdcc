import Dripper

/// A state with a large array, of which each action changes one element.
struct BigList: Dripper {
  struct State: Sendable {
    var items: [Int]
    var count = 0
    var label = ""
  }
  enum Action: Sendable {
    case bump(Int)
    case increase
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .bump(let index): state.items[index] &+= 1
      case .increase: state.count &+= 1
      }
      return .none
    }
  }
}

func observationRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "observation: `swift run -c release dripper-bench --filter observation`"
  let n = options.operations(1_000_000)
  var rows: [Row] = []

  let smallRow = "no observers, a state of 10 elements, one changed per action"
  for size in [10, 100_000] {
    let station = Station(initialState: BigList.State(items: Array(repeating: 0, count: size))) { BigList() }
    let time = await measure(options, operations: n) {
      var last: PourTask?
      for index in 0..<n { last = station.pour(.bump(index % size)) }
      await last?.finish()
    }
    rows.append(
      Row(
        group: group,
        name: size == 10 ? smallRow : "no observers, a state of 100000 elements, one changed per action",
        nanoseconds: time, baseline: size == 10 ? nil : smallRow, target: size == 10 ? nil : 1.5))
  }

  let quietRow = "no observers, .increase"
  let quiet = Station(initialState: BigList.State(items: [])) { BigList() }
  let quietTime = await measure(options, operations: n) {
    var last: PourTask?
    for _ in 0..<n { last = quiet.pour(.increase) }
    await last?.finish()
  }
  rows.append(Row(group: group, name: quietRow, nanoseconds: quietTime))

  // A thousand subscribers, each holding an iterator that has taken its first value.
  func observed<Value: Sendable>(
    _ name: String, operations: Int, _ stream: (StationOf<BigList>) -> StateStream<Value>
  ) async -> Row {
    let station = Station(initialState: BigList.State(items: [])) { BigList() }
    var iterators = (0..<1_000).map { _ in stream(station).makeAsyncIterator() }
    for index in iterators.indices { _ = await iterators[index].next() }
    let time = await measure(options, operations: operations) {
      var last: PourTask?
      for _ in 0..<operations { last = station.pour(.increase) }
      await last?.finish()
    }
    withExtendedLifetime(iterators) {}
    return Row(group: group, name: name, nanoseconds: time, baseline: quietRow)
  }
  rows.append(
    await observed("1,000 observers of a slice that does not change (key path)", operations: n) {
      $0.observe(\.label)
    })
  rows.append(
    await observed("1,000 observers of a slice that does not change (closures)", operations: n / 100) {
      $0.observe { $0.label }
    })
  rows.append(
    await observed("1,000 observers of the slice that changes (key path)", operations: n / 100) {
      $0.observe(\.count)
    })
  return rows
}
