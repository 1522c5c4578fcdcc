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
let rows = await Task.detached { await allRows(options) }.value
let report = Report(rows: rows, options: options)
print(report.text)
if options.check, !report.outOfBounds.isEmpty { exit(1) }
