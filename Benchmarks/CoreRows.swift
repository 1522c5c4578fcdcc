import Dripper

/// The counter of the core benchmarks: the smallest useful feature.
struct BenchCounter: Dripper {
  struct State: Sendable { var count = 0 }
  enum Action: Sendable { case increase, ping, pong }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase:
        state.count &+= 1
        return .none
      case .ping:
        return .run { pour in await pour(.pong) }
      case .pong:
        state.count &+= 1
        return .none
      }
    }
  }
}

/// The floor of any actor-isolated design: a hand-written actor awaited once per action.
actor MinimalActor {
  var count = 0
  func increase() { count &+= 1 }
}

/// A plain loop over the reducer, without any actor: the cost of the reduction itself.
@inline(never)
func plainReducerLoop(_ operations: Int) -> Int {
  let dripper = BenchCounter()
  var state = BenchCounter.State()
  for _ in 0..<operations {
    _ = dripper.reduce(into: &state, action: .increase)
  }
  return state.count
}

func coreRows(scale: Int) async -> [Row] {
  let n = 1_000_000 / scale
  var rows: [Row] = []

  let plain = await measure(operations: n) { _ = plainReducerLoop(n) }
  rows.append(Row(name: "plain reducer loop", nanosecondsPerOperation: plain, baseline: nil, target: nil))

  let actor = MinimalActor()
  let floor = await measure(operations: n) {
    for _ in 0..<n { await actor.increase() }
  }
  rows.append(
    Row(name: "minimal actor, awaited per action", nanosecondsPerOperation: floor, baseline: nil, target: nil)
  )

  let synchronous = await measure(operations: n) {
    let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
    var last: PourTask?
    for _ in 0..<n { last = station.pour(.increase) }
    await last?.finish()
  }
  rows.append(
    Row(
      name: "Station: \(n) synchronous pours, one finish()", nanosecondsPerOperation: synchronous,
      baseline: "minimal actor, awaited per action", target: 2))

  let awaited = await measure(operations: n) {
    let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
    for _ in 0..<n { await station.pour(.increase).finish() }
  }
  rows.append(
    Row(
      name: "Station: await pour(x).finish() per action", nanosecondsPerOperation: awaited,
      baseline: "minimal actor, awaited per action", target: 5))

  let m = n / 10
  let roundTrip = await measure(operations: m) {
    let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
    for _ in 0..<m { await station.pour(.ping).finish() }
  }
  rows.append(
    Row(
      name: "effect round trip: .run { pour in await pour(.y) }", nanosecondsPerOperation: roundTrip,
      baseline: "minimal actor, awaited per action", target: nil))
  return rows
}

/// Runs one path in a loop, for a profiler.
func profile(_ mode: String) async {
  let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
  let n = 3_000_000
  let start = nanoseconds()
  switch mode {
  case "sync":
    var last: PourTask?
    for _ in 0..<n { last = station.pour(.increase) }
    await last?.finish()
  case "minimal":
    let actor = MinimalActor()
    for _ in 0..<n { await actor.increase() }
  case "awaited":
    for _ in 0..<n { await station.pour(.increase).finish() }
  default:
    print("unknown mode \(mode)")
  }
  print(Double(nanoseconds() - start) / Double(n), "ns per action,", mode)
}
