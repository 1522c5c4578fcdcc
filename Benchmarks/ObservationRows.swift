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

  // Issue 43: a large state (100,000 Ints, 800 KB) observed while a million pours change one
  // element each. Each row is a ratio to a copy of the state measured here, and says its ratio to
  // the same pours unobserved.
  let large = 100_000
  let copyRow = "a copy of a 100000-Int state (memcpy, the cost each per-action copy would add)"
  var source = Array(repeating: 1, count: large)
  let copyTime = await measure(options, operations: options.operations(2_000)) {
    for index in 0..<options.operations(2_000) {
      var copy = source
      copy[index % large] &+= 1
      blackHole(copy)
    }
  }
  source[0] = 2
  rows.append(Row(group: group, name: copyRow, nanoseconds: copyTime))
  let unobservedLarge = rows.first {
    $0.name == "no observers, a state of 100000 elements, one changed per action"
  }!
  func largeRow(
    _ name: String, target: Double?, operations: Int? = nil,
    observers: [DripperObserver<BigList.State, BigList.Action>] = [],
    reading: (@Sendable (StationOf<BigList>) async -> Void)? = nil
  ) async -> Row {
    let n = operations ?? n
    let station = Station(
      initialState: BigList.State(items: Array(repeating: 0, count: large)), observers: observers
    ) {
      BigList()
    }
    let reader = reading.map { read in Task { await read(station) } }
    let time = await measure(options, operations: n) {
      var last: PourTask?
      for index in 0..<n { last = station.pour(.bump(index % large)) }
      await last?.finish()
    }
    reader?.cancel()
    await reader?.value
    let toUnobserved = time / unobservedLarge.nanoseconds
    let againstCopy = target.map { $0 < 1 } ?? true
    return Row(
      group: group, name: name, nanoseconds: time, baseline: againstCopy ? copyRow : unobservedLarge.name,
      target: target, bound: target.map { $0 * 4 },
      note: againstCopy
        ? "\(Report.format2(toUnobserved))x the same pours unobserved"
        : "\(Report.format2(time / copyTime))x a copy of the state")
  }
  rows.append(
    await largeRow("1,000,000 pours into a 100000-Int state, one `states` reader", target: 0.2) { station in
      for await state in station.states { blackHole(state.items.count) }
    })
  rows.append(
    await largeRow("1,000,000 pours into a 100000-Int state, one `changes` reader", target: 0.2) { station in
      for await change in station.changes { blackHole(change.previous?.items.count) }
    })
  rows.append(
    await largeRow(
      "1,000,000 pours into a 100000-Int state, a `reduced` observer (the new state only)", target: 2,
      observers: [DripperObserver(reduced: { _, state in blackHole(state.items.count) })]))
  rows.append(
    await largeRow(
      "1,000 pours into a 100000-Int state, a `didReduce` observer (old and new; for contrast)", target: nil,
      operations: options.operations(1_000),
      observers: [DripperObserver(didReduce: { transition in blackHole(transition.old.items.count) })]))

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
