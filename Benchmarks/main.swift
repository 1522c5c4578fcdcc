import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// `swift run -c release dripper-bench [--quick] [--filter TEXT]`, or `--soak SECONDS` (see Soak.swift)
//
// Prints nanoseconds per operation for each row and, for rows with a baseline, the ratio to the
// baseline measured in the same run: ratios, not absolute times, are comparable across machines.

let arguments = Array(CommandLine.arguments.dropFirst())
if let mode = arguments.first, mode.hasPrefix("--profile-") {
  // Top-level code runs on the main actor: measure from a task of the global pool.
  await Task.detached { await profile(String(mode.dropFirst("--profile-".count))) }.value
  exit(0)
}
if arguments.count == 3, arguments[0] == "--probe-memory", let n = Int(arguments[2]) {
  await Task.detached { await probeMemory(arguments[1], n) }.value
  exit(0)
}
let options: BenchmarkOptions
switch BenchmarkOptions.parse(arguments) {
case .success(let parsed): options = parsed
case .failure(let error):
  let message = Array("error: \(error)\n\(BenchmarkOptions.usage)\n".utf8)
  _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(2)
}
if let seconds = options.soakSeconds {
  exit(await Task.detached { await soak(seconds: seconds) }.value ? 0 : 1)
}
let rows = await Task.detached { await allRows(options) }.value
print(Report(rows: rows, options: options).text)
