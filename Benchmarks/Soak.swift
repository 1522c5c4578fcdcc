import Dispatch
import Dripper
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// `swift run -c release dripper-bench --soak SECONDS`
//
// Runs a composed feature under steady load for SECONDS and reads the resident memory as it goes:
// once warmed up, it must not grow. Every round pours 40,000 actions from 64 OS threads into one
// long-lived Station (element actions through forEach, rows added and removed so that their
// timers are cancelled, effects that pour back, keyed effects restarted in flight) while an
// observer follows its states and eight more subscribe and cancel, and starts and releases a
// short-lived Station with 200 effects in flight and an observer of its own. Exits 1 if the memory
// grew by more than `allowedGrowthKiB` after the warm-up.

/// Starts an OS thread (a pthread, not a task) running `body`.
func startOSThread(_ body: @escaping @Sendable () -> Void) {
  precondition(OSThread.start(body), "pthread_create failed")
}

/// OS threads that live for the whole soak and do one round of work each time they are told:
/// producers as a multi-threaded service has them, without creating threads round after round
/// (each new thread gets a malloc arena of its own, which would grow the memory measured).
final class ProducerThreads: Sendable {
  private let permits = DispatchSemaphore(value: 0)
  private let remaining = Atomic<Int>(0)
  private let finished = Lock<CheckedContinuation<Void, Never>?>(nil)
  private let stopping = Atomic<Bool>(false)
  let count: Int

  init(count: Int, round body: @escaping @Sendable (Int) -> Void) {
    self.count = count
    for index in 0..<count {
      startOSThread { [self] in
        while true {
          permits.wait()
          if stopping.load(ordering: .acquiring) { return }
          body(index)
          if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            finished.withLock { $0.take() }?.resume()
          }
        }
      }
    }
  }

  /// Runs one round on every thread, returning once all have done theirs.
  func round() async {
    await withCheckedContinuation { continuation in
      finished.withLock { $0 = continuation }
      remaining.store(count, ordering: .releasing)
      for _ in 0..<count { permits.signal() }
    }
  }

  /// Ends the threads.
  func stop() {
    stopping.store(true, ordering: .releasing)
    for _ in 0..<count { permits.signal() }
  }
}

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

/// Runs the soak in a copy of this process with glibc's malloc arenas capped at two, if they are
/// not already: glibc gives threads arenas of their own (up to 8 per core), which memory freed by
/// one thread's work does not return to, so with 64 producer threads the resident size grows for
/// minutes with the allocator's fragmentation, not with what the Station holds. The cap must be
/// in the environment when the process starts.
func cappingMallocArenas() {
  #if os(Linux)
    guard getenv("MALLOC_ARENA_MAX") == nil else { return }
    setenv("MALLOC_ARENA_MAX", "2", 1)
    let argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) } + [nil]
    execv("/proc/self/exe", argv)
  // If the exec failed, the soak runs here, arenas uncapped.
  #endif
}

/// What the soak allows the memory to grow by after the warm-up: allocator noise, not a leak
/// (a leak of one small object per action grows it by hundreds of MiB a minute).
let allowedGrowthKiB = 8 * 1024

func soak(seconds: Int) async -> Bool {
  if getenv("MALLOC_ARENA_MAX") != nil {
    print("soak: malloc arenas capped at 2 (MALLOC_ARENA_MAX), so that the figures are the Station's")
  }
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
  // The rows that exist this round, for the producers to aim at.
  let window = Lock((first: 0, count: 1_000))
  let producers = ProducerThreads(count: 64) { thread in
    let (first, count) = window.withLock { $0 }
    if thread == 0 {
      for index in 0..<10_000 {
        let id = first + 100 + (index &* 7919) % (count - 200)
        station.pour(.list(.rows(.element(id: id, action: .increase))))
        if index.isMultiple(of: 50) { station.pour(.list(.rows(.element(id: id, action: .startTimer)))) }
      }
    } else {
      for index in 0..<477 {
        station.pour(
          index.isMultiple(of: 100) ? .ping : .list(.rows(.element(id: first + 500, action: .increase))))
      }
    }
  }
  defer { producers.stop() }
  var actions = 0
  var rounds = 0
  var warmKiB: Int?
  var nextReport = start + .seconds(5)
  print("soak: \(seconds) s; memory must not grow by more than \(allowedGrowthKiB) KiB after the warm-up")
  print("soak: at start \(residentKiB()) KiB")
  while clock.now < end {
    // 64 OS threads: one walks the list, starting timers that cancel those in flight; the others
    // pour element actions and pings. Eight observers subscribe meanwhile, and cancel after.
    window.withLock { $0 = (oldest, next - oldest) }
    let watchers = (0..<8).map { _ in
      Task {
        var seen = 0
        for await _ in station.observe(\.pongs) {
          seen &+= 1
          if seen == 2 { break }
        }
      }
    }
    await producers.round()
    for watcher in watchers { watcher.cancel() }
    for _ in 0..<50 {
      station.pour(.list(.addRow))
      station.pour(.list(.removeOldestRow))
    }
    oldest += 50
    next += 50
    await station.pour(.ping).finish()
    // 10,000 element actions and their 200 timers, 30,051 from the others, the rows, the ping.
    actions += 10_200 + 63 * 477 + 100 + 1
    // A Station released with effects in flight and an observer: they are cancelled, its stream
    // ends, and nothing of it stays.
    do {
      let shortLived = Station(initialState: BenchCounter.State()) { BenchCounter() }
      let follower = Task { for await _ in shortLived.observe(\.count) {} }
      for _ in 0..<200 { shortLived.pour(.ping) }
      actions += 200
      _ = follower
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
