import Dripper

// `swift run -c release dripper-bench --soak SECONDS`
//
// Runs a composed feature under steady load for SECONDS and reads the resident memory as it goes:
// once warmed up, it must not grow. Every round pours 40,000 actions from four producers into
// one long-lived Station (element actions through forEach, rows added and removed so that their
// timers are cancelled, effects that pour back, keyed effects restarted in flight) while an
// observer follows its states, and starts and releases a short-lived Station with 200 effects in
// flight. Exits 1 if the memory grew by more than `allowedGrowthKiB` after the warm-up.

/// A row with a timer that restarts, cancelling the one in flight.
struct SoakRow: Dripper {
  struct State: Sendable, Identifiable {
    let id: Int
    var count = 0
    var ticks = 0
  }
  enum Action: Sendable { case increase, startTimer, tick }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase:
        state.count &+= 1
        return .none
      case .startTimer:
        return .run { pour in
          try await Task.sleep(for: .milliseconds(2))
          await pour(.tick)
        }
        .cancellable(id: "timer", cancelInFlight: true)
      case .tick:
        state.ticks &+= 1
        return .none
      }
    }
  }
}

/// A list of rows in a Scope, with rows coming and going and effects that pour back.
struct SoakFeature: Dripper {
  struct State: Sendable {
    var list = ListState()
    var pongs = 0
  }
  struct ListState: Sendable {
    var rows: IdentifiedArrayOf<SoakRow.State> = IdentifiedArray((0..<1_000).map { SoakRow.State(id: $0) })
    var next = 1_000
  }
  enum Action: Sendable {
    case list(ListAction)
    case ping, pong
  }
  enum ListAction: Sendable {
    case rows(IdentifiedAction<Int, SoakRow.Action>)
    case addRow, removeOldestRow
  }

  var body: some DripperOf<Self> {
    Scope(state: \.list, action: CasePath(Action.list) { if case .list(let a) = $0 { a } else { nil } }) {
      Drip<ListState, ListAction> { state, action in
        switch action {
        case .addRow:
          state.rows.append(SoakRow.State(id: state.next))
          state.next += 1
        case .removeOldestRow:
          if !state.rows.isEmpty { state.rows.remove(at: 0) }
        case .rows:
          break
        }
        return .none
      }
      .forEach(\.rows, action: CasePath(ListAction.rows) { if case .rows(let a) = $0 { a } else { nil } }) {
        SoakRow()
      }
    }
    Drip { state, action in
      switch action {
      case .ping: return .run { pour in await pour(.pong) }
      case .pong: state.pongs &+= 1
      case .list: break
      }
      return .none
    }
  }
}

/// What the soak allows the memory to grow by after the warm-up: allocator noise, not a leak
/// (a leak of one small object per action grows it by hundreds of MiB a minute).
let allowedGrowthKiB = 8 * 1024

func soak(seconds: Int) async -> Bool {
  let clock = ContinuousClock()
  let start = clock.now
  let end = start + .seconds(seconds)
  let warmUp = start + .seconds(max(5, seconds / 4))
  let station = Station(initialState: SoakFeature.State()) { SoakFeature() }
  let observer = Task {
    var seen = 0
    for await _ in station.states { seen &+= 1 }
    return seen
  }
  var oldest = 0
  var next = 1_000
  var actions = 0
  var rounds = 0
  var warmKiB: Int?
  var nextReport = start + .seconds(5)
  print("soak: \(seconds) s; memory must not grow by more than \(allowedGrowthKiB) KiB after the warm-up")
  print("soak: at start \(residentKiB()) KiB")
  while clock.now < end {
    // One producer walks the list in order, adding and removing rows as the reducer does.
    await withTaskGroup(of: Void.self) { group in
      let (first, count) = (oldest, next - oldest)
      group.addTask {
        for index in 0..<10_000 {
          let id = first + 100 + (index &* 7919) % (count - 200)
          station.pour(.list(.rows(.element(id: id, action: .increase))))
          if index.isMultiple(of: 50) { station.pour(.list(.rows(.element(id: id, action: .startTimer)))) }
          if index.isMultiple(of: 1_000) { await Task.yield() }
        }
      }
      for _ in 0..<3 {
        group.addTask {
          for index in 0..<10_000 {
            station.pour(
              index.isMultiple(of: 100) ? .ping : .list(.rows(.element(id: first + 500, action: .increase))))
            if index.isMultiple(of: 1_000) { await Task.yield() }
          }
        }
      }
    }
    for _ in 0..<50 {
      station.pour(.list(.addRow))
      station.pour(.list(.removeOldestRow))
    }
    oldest += 50
    next += 50
    await station.pour(.ping).finish()
    // 10,000 element actions and their 200 timers, 30,000 from the others, the rows, the ping.
    actions += 10_200 + 30_000 + 100 + 1
    // A Station released with effects in flight: they are cancelled, and nothing of it stays.
    do {
      let shortLived = Station(initialState: BenchCounter.State()) { BenchCounter() }
      for _ in 0..<200 { shortLived.pour(.ping) }
      actions += 200
    }
    rounds += 1
    let now = clock.now
    if warmKiB == nil, now >= warmUp {
      warmKiB = residentKiB()
      print("soak: warmed up after \(rounds) rounds: \(warmKiB!) KiB")
    }
    if now >= nextReport {
      let elapsed = Double((now - start).components.seconds)
      print(
        "soak: \(Int(elapsed)) s, \(actions) actions (\(Int(Double(actions) / elapsed)) a second), \(residentKiB()) KiB"
      )
      nextReport = now + .seconds(5)
    }
  }
  observer.cancel()
  let states = await observer.value
  let finalKiB = residentKiB()
  let growth = finalKiB - (warmKiB ?? finalKiB)
  let state = await station.state
  print("soak: \(rounds) rounds, \(actions) actions, \(states) states observed, \(state.pongs) pongs")
  print("soak: at end \(finalKiB) KiB: \(growth >= 0 ? "+" : "")\(growth) KiB since the warm-up")
  let held = growth <= allowedGrowthKiB
  print("soak: memory \(held ? "held" : "GREW")")
  return held
}
