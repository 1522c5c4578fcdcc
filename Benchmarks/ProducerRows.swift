import Dripper

/// Where pours come from: an app's main actor, and many OS threads at once.
///
/// The main-actor rows are ratios to the minimal actor awaited from the main actor, the floor an
/// app's button pays. The thread rows pour synchronously from 1 to 64 pthreads into one Station
/// and give the time per action over all of them (throughput), as a ratio to one thread: what
/// contention on the mailbox costs. It stays within 2× (bound 6× under `--check`): before the
/// package's `Lock` stopped convoying (see its documentation), 16 or 64 threads took 177–327× in
/// the runs where a convoy formed.
func producerRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "producers: `swift run -c release dripper-bench --filter producers`"
  let n = options.operations(200_000)
  var rows: [Row] = []

  let floorName = "minimal actor, awaited per action from the main actor"
  let (floor, synchronous, awaited) = await Task { @MainActor in
    let actor = MinimalActor()
    let floor = await measure(options, operations: n) {
      for _ in 0..<n { await actor.increase() }
    }
    let synchronous = await measure(options, operations: n) {
      let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
      var last: PourTask?
      for _ in 0..<n { last = station.pour(.increase) }
      await last?.finish()
    }
    let awaited = await measure(options, operations: n) {
      let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
      for _ in 0..<n { await station.pour(.increase).finish() }
    }
    return (floor, synchronous, awaited)
  }.value
  rows.append(Row(group: group, name: floorName, nanoseconds: floor))
  rows.append(
    Row(
      group: group, name: "main actor: \(n) synchronous pours, one finish()", nanoseconds: synchronous,
      baseline: floorName))
  rows.append(
    Row(
      group: group, name: "main actor: await pour(x).finish() per action", nanoseconds: awaited,
      baseline: floorName))

  let oneThread = "1 OS thread pouring"
  for producers in [1, 2, 4, 8, 16, 32, 64] {
    let perThread = max(1, n / producers)
    let current = Lock<StationOf<BenchCounter>?>(nil)
    let threads = ProducerThreads(count: producers) { _ in
      guard let station = current.withLock({ $0 }) else { return }
      for _ in 0..<perThread { station.pour(.increase) }
    }
    let time = await measure(options, operations: perThread * producers) {
      let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
      current.withLock { $0 = station }
      await threads.round()
      await station.pour(.increase).finish()  // after every thread's pours: all are reduced
    }
    threads.stop()
    let millionsPerSecond = 1_000 / time
    rows.append(
      Row(
        group: group, name: producers == 1 ? oneThread : "\(producers) OS threads pouring at once",
        nanoseconds: time, baseline: producers == 1 ? nil : oneThread,
        target: producers == 1 ? nil : 2, bound: producers == 1 ? nil : 6,
        note: "\(Report.format2(millionsPerSecond)) M actions/s"))
  }
  return rows
}
