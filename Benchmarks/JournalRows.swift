import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Recording and replaying: a plain pour against the same pour recorded to memory and to a file
/// flushed every 1,000 actions, with an encoder that costs nothing (the rows measure the journal,
/// not the encoder); and a replay of a million entries.
func journalRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "journal: `swift run -c release dripper-bench --filter journal`"
  let m = options.operations(200_000)
  let directory = scratchDirectory()
  defer { removeScratch(directory) }
  let encode: @Sendable (BenchCounter.Action) -> String = { _ in "increase" }
  var fileNumber = 0
  let times = await measureInterleaved(
    options, operations: m,
    [
      {
        let station = Station(initialState: BenchCounter.State()) { BenchCounter() }
        var last: PourTask?
        for _ in 0..<m { last = station.pour(.increase) }
        await last?.finish()
      },
      {
        let journal = Journal.inMemory()
        let station = Station(initialState: BenchCounter.State()) {
          BenchCounter().recording(to: journal, encode: encode)
        }
        var last: PourTask?
        for _ in 0..<m { last = station.pour(.increase) }
        await last?.finish()
      },
      {
        fileNumber += 1
        guard
          let journal = try? Journal.file(
            at: "\(directory)/\(fileNumber).journal", durability: .everyActions(1_000))
        else { fatalError("dripper-bench: no journal file in \(directory)") }
        let station = Station(initialState: BenchCounter.State()) {
          BenchCounter().recording(to: journal, encode: encode)
        }
        var last: PourTask?
        for _ in 0..<m { last = station.pour(.increase) }
        await last?.finish()
        try? journal.close()
      },
    ])
  let plainRow = "synchronous pours, not recorded"
  var rows = [
    Row(group: group, name: plainRow, nanoseconds: times[0]),
    Row(
      group: group, name: "synchronous pours recorded to a journal in memory", nanoseconds: times[1],
      baseline: plainRow, target: 2, bound: 8),
    Row(
      // The bound is wide: the row pays one fdatasync a thousand actions, whose time is the
      // disk's, against a baseline of a few nanoseconds of CPU. A sync each action would be
      // some 1,000x.
      group: group, name: "synchronous pours recorded to a file flushed every 1,000 actions",
      nanoseconds: times[2], baseline: plainRow, target: 3, bound: 32),
  ]

  let n = options.operations(1_000_000)
  let entries = (1...UInt64(n)).map { JournalEntry(sequence: $0, action: "increase", stateHash: nil) }
  let replay = await measure(options, operations: n) {
    let (state, _) = BenchCounter().replay(entries, from: BenchCounter.State()) { text in
      guard text == "increase" else { throw JournalError("not an action: \(text)") }
      return .increase
    }
    precondition(state.count == n)
  }
  rows.append(
    Row(
      group: group, name: "a replay of 1,000,000 entries, one small action each", nanoseconds: replay,
      note:
        "\(Int(1e9 / replay / 1e3)) thousand entries a second; target >= 1,000,000 a second: \(replay <= 1_000 ? "met" : "MISSED")"
    ))
  return rows
}

/// A directory of the benchmark's own for journal files.
private func scratchDirectory() -> String {
  let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  var template = Array("\(base)/dripper-bench-XXXXXX".utf8CString)
  guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
    fatalError("dripper-bench: could not make a directory in \(base)")
  }
  return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func removeScratch(_ directory: String) {
  var index = 1
  while unlink("\(directory)/\(index).journal") == 0 { index += 1 }
  rmdir(directory)
}
