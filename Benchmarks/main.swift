import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// `swift run -c release dripper-bench [--quick] [--filter TEXT]`
//
// Prints nanoseconds per operation for each row and, for rows with a baseline, the ratio to the
// baseline measured in the same run: ratios, not absolute times, are comparable across machines.

let arguments = Array(CommandLine.arguments.dropFirst())
if let mode = arguments.first, mode.hasPrefix("--profile-") {
  // Top-level code runs on the main actor: measure from a task of the global pool.
  await Task.detached { await profile(String(mode.dropFirst("--profile-".count))) }.value
  exit(0)
}
let options = BenchmarkOptions(arguments)
let rows = await Task.detached { await allRows(options) }.value
print(Report(rows: rows, options: options).text)
