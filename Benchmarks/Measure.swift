#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Nanoseconds on a monotonic clock.
func nanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// One row of the report: nanoseconds per operation, the best of several runs.
struct Row {
  let name: String
  let nanosecondsPerOperation: Double
  /// The row this one is compared with, by name.
  let baseline: String?
  /// The ratio to the baseline that the issue sets as a target.
  let target: Double?
}

/// Runs `body` (which performs `operations` operations) `repetitions` times and returns the best
/// time per operation: the least disturbed by the rest of the machine.
func measure(
  operations: Int, repetitions: Int = 5, _ body: () async -> Void
) async -> Double {
  var best = Double.infinity
  for _ in 0..<repetitions {
    let start = nanoseconds()
    await body()
    let elapsed = Double(nanoseconds() - start) / Double(operations)
    best = min(best, elapsed)
  }
  return best
}

/// Peak resident memory of the process so far, in kibibytes.
func peakResidentKiB() -> Int {
  var usage = rusage()
  #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
  #else
    getrusage(RUSAGE_SELF, &usage)
  #endif
  #if canImport(Darwin)
    return Int(usage.ru_maxrss) / 1024
  #else
    return Int(usage.ru_maxrss)
  #endif
}
