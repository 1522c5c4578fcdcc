import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// `swift run -c release dripper-bench [--quick] [--filter TEXT]`, or `--soak SECONDS` (see Soak.swift),
// or `--profile-MODE` (see `profile(_:)`)
//
// Prints nanoseconds per operation for each row and, for rows with a baseline, the ratio to the
// baseline measured in the same run: ratios, not absolute times, are comparable across machines.

/// Prints `error` and the usage on standard error, and exits with status 2.
func exitWithUsage(_ error: String) -> Never {
  let message = Array("error: \(error)\n\(BenchmarkOptions.usage)\n".utf8)
  _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let mode = arguments.first, mode.hasPrefix("--profile-") {
  // Top-level code runs on the main actor: measure from a task of the global pool.
  let name = String(mode.dropFirst("--profile-".count))
  guard await Task.detached(operation: { await profile(name) }).value else {
    exitWithUsage("unknown profile mode '\(name)'")
  }
  exit(0)
}
if arguments.count == 3, arguments[0] == "--probe-memory", let n = Int(arguments[2]) {
  await Task.detached { await probeMemory(arguments[1], n) }.value
  exit(0)
}
let options: BenchmarkOptions
switch BenchmarkOptions.parse(arguments) {
case .success(let parsed): options = parsed
case .failure(let error): exitWithUsage("\(error)")
}
if let seconds = options.soakSeconds {
  cappingMallocArenas()
  exit(await Task.detached { await soak(seconds: seconds) }.value ? 0 : 1)
}
var report = Report(rows: await Task.detached { await allRows(options) }.value, options: options)
print(report.text)
// With --check, a row out of its bound is measured again, twice at most, with the whole run of its
// filter (its baseline too): a burst of load on the machine falls on one run, a row that lost its
// speed is out of bounds in all three. Only the latter fails.
var outOfBounds = Set(report.outOfBounds.map(\.row.name))
for attempt in 2...3 where options.check && !outOfBounds.isEmpty {
  print(
    "\ncheck: \(outOfBounds.sorted().joined(separator: ", ")) out of bounds; measuring again (\(attempt) of 3)"
  )
  report = Report(rows: await Task.detached { await allRows(options) }.value, options: options)
  print(report.text)
  outOfBounds.formIntersection(report.outOfBounds.map(\.row.name))
}
if options.check {
  print(
    outOfBounds.isEmpty
      ? "check: passed" : "check FAILED in three runs: \(outOfBounds.sorted().joined(separator: ", "))")
  if !outOfBounds.isEmpty { exit(1) }
}
