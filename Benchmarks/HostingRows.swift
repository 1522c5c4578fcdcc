import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The counter the hosting rows run for many keys: the core counter, `Codable` for a folder.
struct KeyCounter: Dripper {
  struct State: Sendable, Codable { var count = 0 }
  enum Action: Sendable, Codable, Equatable { case increase }

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count &+= 1
      return .none
    }
  }
}

/// A ``StationHost``: a pour to a resident key against a pour into a Station, an activation
/// against making a Station, a recovery as the keys on disk double.
func hostingRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "hosting: `swift run -c release dripper-bench --filter hosting`"
  var rows: [Row] = []
  let host = counterHost(lifetime: HostLifetime(idleAfter: nil, maximumResident: 1_000_000))
  await host.pour(.increase, to: 1).finish()

  // Synchronous pours to one resident key, and into a Station.
  let m = options.operations(1_000_000)
  let synchronous = await measureInterleaved(
    options, operations: m,
    [
      {
        let station = Station(initialState: KeyCounter.State()) { KeyCounter() }
        var last: PourTask?
        for _ in 0..<m { last = station.pour(.increase) }
        await last?.finish()
      },
      {
        var last: PourTask?
        for _ in 0..<m { last = host.pour(.increase, to: 1) }
        await last?.finish()
      },
    ])
  let direct = "synchronous pours into a Station"
  rows.append(Row(group: group, name: direct, nanoseconds: synchronous[0]))
  rows.append(
    Row(
      group: group, name: "synchronous pours to a resident key through a host", nanoseconds: synchronous[1],
      baseline: direct, target: 1.5, bound: 6))

  // Awaited pours, one at a time.
  let a = options.operations(100_000)
  let station = Station(initialState: KeyCounter.State()) { KeyCounter() }
  let awaited = await measureInterleaved(
    options, operations: a,
    [
      { for _ in 0..<a { await station.pour(.increase).finish() } },
      { for _ in 0..<a { await host.pour(.increase, to: 1).finish() } },
    ])
  let awaitedDirect = "an awaited pour into a Station"
  rows.append(Row(group: group, name: awaitedDirect, nanoseconds: awaited[0]))
  rows.append(
    Row(
      group: group, name: "an awaited pour to a resident key through a host", nanoseconds: awaited[1],
      baseline: awaitedDirect, target: 1.5, bound: 4))

  // Activating a passivated in-memory key (and pouring into it), against making a Station: the
  // keys are made and passivated untimed, then one pour each activates them.
  let k = options.operations(20_000)
  var best = (making: Double.infinity, activating: Double.infinity)
  var nextKey = 1_000
  for _ in 0..<(options.quick ? 1 : 5) {
    var stations: [StationOf<KeyCounter>] = []
    stations.reserveCapacity(k)
    var start = nanoseconds()
    for _ in 0..<k {
      let station = Station(initialState: KeyCounter.State()) { KeyCounter() }
      station.pour(.increase)
      stations.append(station)
    }
    await stations.last?.reducePending()
    best.making = min(best.making, Double(nanoseconds() - start) / Double(k))
    stations = []
    let keys = nextKey..<(nextKey + k)
    nextKey += k
    for key in keys { host.pour(.increase, to: key) }
    for key in keys { await host.passivate(key) }
    start = nanoseconds()
    var last: PourTask?
    for key in keys { last = host.pour(.increase, to: key) }
    await last?.finish()
    best.activating = min(best.activating, Double(nanoseconds() - start) / Double(k))
  }
  let made = "making a Station and pouring into it"
  rows.append(Row(group: group, name: made, nanoseconds: best.making))
  rows.append(
    Row(
      group: group, name: "activating a passivated in-memory key and pouring into it",
      nanoseconds: best.activating, baseline: made, target: 3, bound: 8))

  rows += await recoveryRows(options, group: group)
  await host.close()
  rows += await durableHostingRows(options, group: group)
  return rows
}

/// The recovery of a key kept on disk, as the keys on disk double: it reads that key's folder,
/// whatever the others.
private func recoveryRows(_ options: BenchmarkOptions, group: String) async -> [Row] {
  let sizes = [10_000, 20_000, 40_000].map(options.operations)
  let sample = options.operations(2_000)
  let directory = hostScratch()
  defer { removeTree(directory) }
  var made = 0
  var times: [Double] = []
  for size in sizes {
    // Keys made with a host and closed: each a folder with a snapshot.
    let writer = counterHost(
      storage: .folder(directory, codec: .json, durability: .everyActions(1_000)),
      lifetime: HostLifetime(idleAfter: nil, maximumResident: 1_000))
    for key in made..<size { writer.pour(.increase, to: key) }
    await writer.close()
    made = size
    let reader = counterHost(
      storage: .folder(directory, codec: .json, durability: .everyActions(1_000)),
      lifetime: HostLifetime(idleAfter: nil, maximumResident: 1_000_000))
    let stride = max(1, size / sample)
    let keys = Array(Swift.stride(from: 0, to: size, by: stride).prefix(sample))
    let start = nanoseconds()
    for key in keys { _ = try? await reader.state(of: key) }
    times.append(Double(nanoseconds() - start) / Double(keys.count))
    await reader.close()
  }
  let smallest = "recovering a key kept on disk, \(sizes[0]) keys on disk"
  return [Row(group: group, name: smallest, nanoseconds: times[0])]
    + zip(sizes, times).dropFirst().map { size, time in
      Row(
        group: group, name: "recovering a key kept on disk, \(size) keys on disk", nanoseconds: time,
        baseline: smallest, target: 1.5, bound: 4)
    }
}

/// A host of counters.
func counterHost(
  storage: HostStorage<KeyCounter.State, KeyCounter.Action> = .inMemory, lifetime: HostLifetime
) -> StationHost<Int, KeyCounter> {
  do {
    return try StationHost(storage: storage, lifetime: lifetime) { _ in
      KeyCounter.State()
    } dripper: { _ in
      KeyCounter()
    }
  } catch {
    fatalError("dripper-bench: no host: \(error)")
  }
}

/// A folder for the hosting rows: in `/dev/shm` where there is one, so that the rows measure the
/// host, not the disk's syncs.
func hostScratch() -> String {
  var status = stat()
  let base =
    stat("/dev/shm", &status) == 0 ? "/dev/shm" : (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
  var template = Array("\(base)/dripper-host-bench-XXXXXX".utf8CString)
  guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
    fatalError("dripper-bench: could not make a directory in \(base)")
  }
  return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Removes a folder and everything in it.
func removeTree(_ path: String) {
  var status = stat()
  guard lstat(path, &status) == 0 else { return }
  if status.st_mode & S_IFMT == S_IFDIR, let stream = opendir(path) {
    var names: [String] = []
    while let entry = readdir(stream) {
      let offset = MemoryLayout<dirent>.offset(of: \.d_name)!
      let name = String(
        cString: UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self))
      if name != ".", name != ".." { names.append(name) }
    }
    closedir(stream)
    for name in names { removeTree(path + "/" + name) }
    rmdir(path)
  } else {
    unlink(path)
  }
}

/// Keys at scale: n, 2n and 4n distinct keys (a million at 4n) through a host kept in a folder and
/// capped at 10,000 resident, one pour each: the resident memory once they have passed, and the
/// open files. Memory flat as the keys double, files the residents': nothing is kept per
/// passivated key. `swift run -c release dripper-bench --filter "keys at scale"` (minutes: it writes
/// a folder a key, in `/dev/shm` where there is one).
func keysAtScaleRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "keys at scale: `swift run -c release dripper-bench --filter \"keys at scale\"`"
  let sizes = [250_000, 500_000, 1_000_000].map(options.operations)
  var memory: [Int] = []
  var files: [Int] = []
  var times: [Double] = []
  for size in sizes {
    // Each size in a process of its own, so that what one run leaves in the allocator is not read
    // as the next one's; with glibc's arenas capped at two, as the soak runs: uncapped, the arenas
    // of the threads that activate keys grew the memory by a third as the keys went from 250,000
    // to a million (82 to 109 MB), and by 4% capped (81 to 84).
    guard
      let printed = runItself(
        ["--probe-memory", "host-keys", String(size)], environment: ["MALLOC_ARENA_MAX=2"])
    else { return [] }
    let fields = printed.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    guard fields.count == 3 else { return [] }
    memory.append(Int(fields[0]))
    files.append(Int(fields[1]))
    times.append(fields[2])
  }
  var rows: [Row] = []
  for index in sizes.indices {
    let ratio = Double(memory[index]) / Double(max(1, memory[0]))
    let hundredths = Int((ratio * 100).rounded())
    var note =
      "\(memory[index] / 1_024) MB resident (\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)x), "
    note += "\(files[index]) files open"
    if index > 0 { note += "; memory target <= 1.25x: \(ratio <= 1.25 ? "met" : "MISSED")" }
    rows.append(
      Row(
        group: group, name: "\(sizes[index]) keys through a host capped at 10,000 resident",
        nanoseconds: times[index], note: note))
  }
  return rows
}

/// `--probe-memory host-keys N`: N keys through a host in a folder, 10,000 resident; prints the
/// resident memory (KiB) after, the files open, and the nanoseconds a key.
func probeHostKeys(_ n: Int) async {
  let directory = hostScratch()
  defer { removeTree(directory) }
  let host = counterHost(
    storage: .folder(directory, codec: .json), lifetime: HostLifetime(idleAfter: nil, maximumResident: 10_000)
  )
  let start = nanoseconds()
  let batch = 1_000
  for first in stride(from: 0, to: n, by: batch) {
    var last: PourTask?
    for key in first..<min(first + batch, n) { last = host.pour(.increase, to: key) }
    await last?.finish()
  }
  await host.settle()
  let elapsed = Double(nanoseconds() - start) / Double(n)
  let kib = residentKiB()
  let open = openFiles()
  await host.close()
  print(kib, open, elapsed)
}

/// How many files the process has open.
private func openFiles() -> Int {
  guard let stream = opendir("/proc/self/fd") else { return 0 }
  defer { closedir(stream) }
  var count = 0
  while readdir(stream) != nil { count += 1 }
  return count - 2
}
