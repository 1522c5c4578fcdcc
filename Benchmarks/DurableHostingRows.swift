import Dripper
import Foundation

/// A counter whose action may start an effect, and whose state may hold reminders: what the rows
/// of a host's durability, closing, reminders and replay checks run.
struct DurableCounter: Dripper {
  struct State: Sendable, Codable { var count = 0 }
  enum Action: Sendable, Codable, Equatable {
    case increase
    /// Increases, and starts an effect that does nothing: held until the entry is synced.
    case increaseAndTell
    case remind(Int, at: Date)
    case rang
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase, .rang:
        state.count &+= 1
        return .none
      case .increaseAndTell:
        state.count &+= 1
        return .run { _ in }
      case .remind(let number, let date):
        return .remind(.rang, at: date, id: String(number))
      }
    }
  }
}

/// A host of durable counters.
private func durableHost(
  _ storage: HostStorage<DurableCounter.State, DurableCounter.Action>,
  lifetime: HostLifetime = HostLifetime(idleAfter: nil)
) -> StationHost<Int, DurableCounter> {
  do {
    return try StationHost(storage: storage, lifetime: lifetime) { _ in
      DurableCounter.State()
    } dripper: { _ in
      DurableCounter()
    }
  } catch {
    fatalError("dripper-bench: no host: \(error)")
  }
}

/// A folder on the disk the tests' files go to (not `/dev/shm`): rows whose figure is the disk's
/// syncs.
private func diskScratch() -> String {
  let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  var template = Array("\(base)/dripper-durable-bench-XXXXXX".utf8CString)
  guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
    fatalError("dripper-bench: could not make a directory in \(base)")
  }
  return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Issue 57's rows: requests acknowledged only once durable, one key and 1,000 keys at once, on
/// the disk; the effects held until their entry is synced; `close()` of 150 resident durable keys;
/// the memory of a passivated in-memory key; a reminder set as a key's reminders double; and the
/// cost of the replay digest on the way of a pour.
func durableHostingRows(_ options: BenchmarkOptions, group: String) async -> [Row] {
  var rows: [Row] = []
  // The rows whose figure is the disk's, or memory's, have no bound: `--check` leaves them out.
  if !options.check {
    rows += await acknowledgedRows(options, group: group)
    rows += await closeRow(options, group: group)
    rows += passiveMemoryRow(options, group: group)
  }
  rows += await reminderRows(options, group: group)
  rows += await digestRows(options, group: group)
  return rows
}

/// Requests with ids, each returned once its entry is synced (`everyAction`), on the disk: one
/// at a time to one key (a sync each), 100 at once to one key (synced together), and one at a time
/// to each of 1,000 keys at once (the keys' syncs run together on the storage threads).
private func acknowledgedRows(_ options: BenchmarkOptions, group: String) async -> [Row] {
  let directory = diskScratch()
  defer { removeTree(directory) }
  let host = durableHost(.folder(directory, codec: .json))
  let alone = options.operations(300)
  var nextID = 0
  func id() -> String {
    nextID += 1
    return String(nextID)
  }
  _ = try? await host.pour(.increase, to: 0, id: id())
  let one = await measure(options, operations: alone) {
    for _ in 0..<alone { _ = try? await host.pour(.increase, to: 0, id: id()) }
  }
  let together = options.operations(2_000)
  let concurrent = await measure(options, operations: together) {
    let ids = (0..<together).map { _ in id() }
    await withTaskGroup(of: Void.self) { group in
      for lane in 0..<100 {
        group.addTask {
          for index in stride(from: lane, to: together, by: 100) {
            _ = try? await host.pour(.increase, to: 1, id: ids[index])
          }
        }
      }
    }
  }
  let keys = options.operations(1_000)
  for key in 0..<keys { _ = try? await host.pour(.increase, to: 1_000 + key, id: id()) }
  let many = await measure(options, operations: keys * 2) {
    let ids = (0..<(keys * 2)).map { _ in id() }
    await withTaskGroup(of: Void.self) { group in
      for key in 0..<keys {
        group.addTask {
          for round in 0..<2 {
            _ = try? await host.pour(.increase, to: 1_000 + key, id: ids[key * 2 + round])
          }
        }
      }
    }
  }
  // An effect held until the entry of the action that started it is synced, with entries batched
  // (`everyActions(1_000)`): the reduction asks for the sync at once. Against the same in memory.
  let held = durableHost(.folder(directory + "/held", codec: .json, durability: .everyActions(1_000)))
  let memory = durableHost(.inMemory)
  let e = options.operations(300)
  let effects = await measureInterleaved(
    options, operations: e,
    [
      { for _ in 0..<e { await memory.pour(.increaseAndTell, to: 0).finish() } },
      { for _ in 0..<e { await held.pour(.increaseAndTell, to: 0).finish() } },
    ])
  await held.close()
  await memory.close()
  await host.close()
  let perSecond = { (nanoseconds: Double) in "\(Int((1e9 / nanoseconds).rounded())) acknowledged a second" }
  let single = "a request to one key, one at a time, acknowledged once synced (everyAction, on disk)"
  let memoryRow = "a pour whose effect runs, in memory, awaited"
  return [
    Row(group: group, name: single, nanoseconds: one, note: perSecond(one)),
    Row(
      group: group, name: "100 requests at once to one key, each acknowledged once synced",
      nanoseconds: concurrent,
      baseline: single, note: perSecond(concurrent)),
    Row(
      group: group, name: "requests to 1,000 keys at once, each acknowledged once synced", nanoseconds: many,
      baseline: single, note: perSecond(many)),
    Row(group: group, name: memoryRow, nanoseconds: effects[0]),
    Row(
      group: group, name: "the same, its effect held until its entry is synced (everyActions(1000), on disk)",
      nanoseconds: effects[1], baseline: memoryRow),
  ]
}

/// `close()` of 150 resident keys kept in a folder on the disk, each with entries to sync and a
/// snapshot to write: their syncs run together on the storage threads.
private func closeRow(_ options: BenchmarkOptions, group: String) async -> [Row] {
  var best = Double.infinity
  for _ in 0..<(options.quick ? 1 : 3) {
    let directory = diskScratch()
    let host = durableHost(.folder(directory, codec: .json, durability: .everyActions(1_000)))
    for key in 0..<150 { await host.pour(.increase, to: key).finish() }
    for key in 0..<150 { host.pour(.increase, to: key) }
    for key in 0..<150 { _ = try? await host.state(of: key) }
    let start = nanoseconds()
    await host.close()
    best = min(best, Double(nanoseconds() - start))
    removeTree(directory)
  }
  let milliseconds = Int((best / 1e6).rounded())
  return [
    Row(
      group: group, name: "close() of 150 resident durable keys on disk (the whole close)", nanoseconds: best,
      note: "\(milliseconds) ms; target <= 300 ms: \(milliseconds <= 300 ? "met" : "MISSED")")
  ]
}

/// The memory a passivated in-memory key keeps: n and 2n keys through a host capped at 1,000
/// resident, each poured once, in a process of their own; the difference over n keys.
private func passiveMemoryRow(_ options: BenchmarkOptions, group: String) -> [Row] {
  let n = options.operations(100_000)
  guard
    let small = runItself(
      ["--probe-memory", "passive-keys", String(n)], environment: ["MALLOC_ARENA_MAX=2"]),
    let large = runItself(
      ["--probe-memory", "passive-keys", String(2 * n)], environment: ["MALLOC_ARENA_MAX=2"]),
    let smallKiB = Int(small.trimmingCharacters(in: .whitespacesAndNewlines)),
    let largeKiB = Int(large.trimmingCharacters(in: .whitespacesAndNewlines))
  else { return [] }
  let bytes = Double(largeKiB - smallKiB) * 1_024 / Double(n)
  return [
    Row(
      group: group, name: "memory a passivated in-memory key keeps (\(2 * n) keys against \(n))",
      nanoseconds: 0,
      note:
        "\(Int(bytes.rounded())) bytes a key; target <= 1 KB plus its state: \(bytes <= 1_024 + 64 ? "met" : "MISSED")"
    )
  ]
}

/// `--probe-memory passive-keys N`: N keys through an in-memory host capped at 1,000 resident, one
/// pour each; prints the resident memory after, in KiB.
func probePassiveKeys(_ n: Int) async {
  let host = durableHost(.inMemory, lifetime: HostLifetime(idleAfter: nil, maximumResident: 1_000))
  for first in stride(from: 0, to: n, by: 1_000) {
    var last: PourTask?
    for key in first..<min(first + 1_000, n) { last = host.pour(.increase, to: key) }
    await last?.finish()
  }
  await host.settle()
  for key in 0..<min(n, 2_000) { await host.passivate(key) }
  print(residentKiB())
  withExtendedLifetime(host) {}
}

/// Setting a reminder on a key that has n, 2n and 4n of them: O(log n) each, so the time barely
/// grows as they double.
private func reminderRows(_ options: BenchmarkOptions, group: String) async -> [Row] {
  let sizes = [2_500, 5_000, 10_000].map(options.operations)
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  var times: [Double] = []
  for (index, size) in sizes.enumerated() {
    let host = durableHost(
      .inMemory, lifetime: HostLifetime(idleAfter: nil, time: .controlled(by: TestClock(), startingAt: start))
    )
    let time = await measure(options, operations: size) {
      var last: PourTask?
      for number in 0..<size {
        last = host.pour(
          .remind(number, at: start.addingTimeInterval(Double(1_000 + number % 977))), to: index)
      }
      await last?.finish()
    }
    times.append(time)
    await host.close()
  }
  let smallest = "a reminder set on a key, \(sizes[0]) reminders on the key"
  return [Row(group: group, name: smallest, nanoseconds: times[0])]
    + zip(sizes, times).dropFirst().map { size, time in
      Row(
        group: group, name: "a reminder set on a key, \(size) reminders on the key", nanoseconds: time,
        baseline: smallest, target: 1.5, bound: 4)
    }
}

/// A pour to a key kept in a folder (`everyActions(1_000)`, `/dev/shm`), with the replay digest of
/// its state recorded every 100 actions (the default) against none.
private func digestRows(_ options: BenchmarkOptions, group: String) async -> [Row] {
  let directory = hostScratch()
  defer { removeTree(directory) }
  let plain = durableHost(
    .folder(directory + "/plain", codec: .json, durability: .everyActions(1_000)).checkingReplays(
      every: 0, onDivergence: .fail))
  let digested = durableHost(.folder(directory + "/digested", codec: .json, durability: .everyActions(1_000)))
  let m = options.operations(200_000)
  await plain.pour(.increase, to: 0).finish()
  await digested.pour(.increase, to: 0).finish()
  let times = await measureInterleaved(
    options, operations: m,
    [
      {
        var last: PourTask?
        for _ in 0..<m { last = plain.pour(.increase, to: 0) }
        await last?.finish()
      },
      {
        var last: PourTask?
        for _ in 0..<m { last = digested.pour(.increase, to: 0) }
        await last?.finish()
      },
    ])
  await plain.close()
  await digested.close()
  let base = "a pour to a key kept in a folder, no replay digest"
  return [
    Row(group: group, name: base, nanoseconds: times[0]),
    Row(
      group: group, name: "the same, a replay digest every 100 actions (the default)", nanoseconds: times[1],
      baseline: base, target: 1.05, bound: 1.5),
  ]
}

/// `--profile-hostreminders`: 5,000 reminders set on one key.
func profileReminders() async {
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  let host = durableHost(
    .inMemory, lifetime: HostLifetime(idleAfter: nil, time: .controlled(by: TestClock(), startingAt: start)))
  var last: PourTask?
  for number in 0..<5_000 {
    last = host.pour(.remind(number, at: start.addingTimeInterval(Double(1_000 + number % 977))), to: 0)
  }
  await last?.finish()
}
