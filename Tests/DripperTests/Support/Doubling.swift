import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Nanoseconds on a monotonic clock.
func monotonicNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Nanoseconds of processor time the calling thread has used: what synchronous work costs,
/// whatever else the machine runs. A wall-clock measure of tens of milliseconds beside another
/// busy process is cut into scheduler slices, which inflate the longest sizes most: one CI run
/// beside a build measured concatenating 10,000, 20,000 and 40,000 effects at 6, 18 and 42 ms.
func threadCPUNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Checks that `work` grows linearly: times it at `n`, `2n` and `4n`, three rounds each, the sizes
/// interleaved so that a busy moment of the machine falls on all of them, and expects the best
/// time at `4n` within 8× the best at `n` (4× is linear; a quadratic is 16×, and 8× is halfway
/// between the two on a log scale). The suite runs beside the others, on a loaded machine: a check
/// that fails is measured again, up to five times, and passes if any measure holds. A quadratic
/// fails all five.
///
/// Wall-clock time, because the work crosses threads (a producer, the Station's drain): with both
/// cores held by other processes, work that spans more scheduler slices waits longer for the other
/// thread, so the largest size reads up to 8× in some attempts (forEach appends, 2,000 to 8,000:
/// 7.3×, 6.5×, 8.0× in one run beside two busy loops; 3.9×-5.6× on a quiet machine).
///
/// Not a measure of speed — the benchmark measures that — but of how cost grows: a change that
/// brings back a quadratic fails here. `n` is scaled by `DRIPPER_STRESS_SCALE` (the sanitizers run
/// it smaller).
func expectLinear(
  _ label: String, n: Int, sourceLocation: SourceLocation = #_sourceLocation,
  _ work: (Int) async -> Void
) async {
  await expectLinearTimes(label, n: n, bound: wallClockBound, sourceLocation) { size in
    let start = monotonicNanoseconds()
    await work(size)
    return monotonicNanoseconds() - start
  }
}

/// ``expectLinear(_:n:sourceLocation:_:)`` for work that never suspends, timed by the processor
/// time of its thread (see ``threadCPUNanoseconds()``).
func expectLinearSynchronous(
  _ label: String, n: Int, sourceLocation: SourceLocation = #_sourceLocation,
  _ work: (Int) -> Void
) async {
  await expectLinearTimes(label, n: n, bound: linearBound, sourceLocation) { size in
    let start = threadCPUNanoseconds()
    work(size)
    return threadCPUNanoseconds() - start
  }
}

/// The sizes and bound of a linearity check, for either clock.
private func expectLinearTimes(
  _ label: String, n: Int, bound: Double, _ sourceLocation: SourceLocation,
  _ nanoseconds: (Int) async -> UInt64
) async {
  let n = scaled(n)
  await expectGrowth(
    label, sizes: [n, 2 * n, 4 * n], bound: bound, "not linear from n to 4n", sourceLocation, nanoseconds)
}

/// Checks that the part of `work` it times itself does not grow with `n`: `work` returns the
/// nanoseconds that part took at a size; the best at `4n` must be within 3× the best at `n`
/// (flat is 1×; a cost linear in `n` is 4×).
func expectIndependentOfSize(
  _ label: String, n: Int, sourceLocation: SourceLocation = #_sourceLocation,
  _ work: (Int) async -> UInt64
) async {
  let n = scaled(n)
  await expectGrowth(label, sizes: [n, 4 * n], bound: 3, "grows with n", sourceLocation, work)
}

/// How much the time may grow from `n` to `4n`: 6× at full size. The sanitizers run the checks
/// at a tenth of the size, where AddressSanitizer's allocator (its quarantine of freed blocks)
/// makes the cost jump at size boundaries: merging 1,000, 2,000 and 4,000 effects took 1.1, 2.2
/// and 8.8 ms under it, 4.5, 9.0 and 19.0 ms for ten times as many without. 10× there still fails
/// a quadratic (16×).
private let linearBound: Double = stressScale < 1 ? 10 : 6

/// The bound of wall-clock checks: 8× (see ``expectLinear(_:n:sourceLocation:_:)``), or 10× with
/// the sanitizers.
private let wallClockBound: Double = stressScale < 1 ? 10 : 8

/// The measure both checks share: the best of three rounds at each size, the sizes interleaved,
/// and the ratio of the last size's best to the first's within `bound`, in one of five attempts.
private func expectGrowth(
  _ label: String, sizes: [Int], bound: Double, _ failure: String, _ sourceLocation: SourceLocation,
  _ nanoseconds: (Int) async -> UInt64
) async {
  _ = keepingLargeBlocksInTheHeap
  var attempts: [String] = []
  for _ in 0..<5 {
    var best = [UInt64](repeating: .max, count: sizes.count)
    for _ in 0..<3 {
      for (index, size) in sizes.enumerated() { best[index] = min(best[index], await nanoseconds(size)) }
    }
    let ratio = Double(best[best.count - 1]) / Double(max(best[0], 1))
    let figures = "\(best.map { tenths(Double($0) / 1e6) }.joined(separator: "/")) ms (\(tenths(ratio))x)"
    if scaleReport { print("scale: \(label): n = \(sizes): \(figures)") }
    if ratio <= bound { return }
    attempts.append(figures)
  }
  Issue.record(
    "\(label): at \(sizes) it took \(attempts.joined(separator: ", then ")): \(failure)",
    sourceLocation: sourceLocation)
}

/// Large blocks allocated from the heap, not mapped one by one: past glibc's mmap threshold
/// (128 KB at first), every growth of a large array is a fresh mapping, and on a loaded machine
/// its page faults, not the work, decided the figure at the largest size (concatenating 10,000,
/// 20,000 and 40,000 effects took 7, 30 and 58 ms in one CI run beside a build; 4.5, 9.0 and 19.0
/// ms unloaded). Set once, for the test process.
private let keepingLargeBlocksInTheHeap: Void = {
  #if canImport(Glibc)
    // glibc's `mallopt`, which the Glibc module does not import (it is in malloc.h).
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    _ = mallopt(-3, 256 << 20)  // M_MMAP_THRESHOLD
    _ = mallopt(-1, 512 << 20)  // M_TRIM_THRESHOLD
  #endif
}()

/// With `DRIPPER_SCALE_REPORT=1` the checks print each measure, so that a change's figures can be
/// quoted: `DRIPPER_SCALE_REPORT=1 swift test --filter ScaleTests`.
private let scaleReport = getenv("DRIPPER_SCALE_REPORT").map { String(cString: $0) } == "1"

/// `value` with one decimal.
private func tenths(_ value: Double) -> String {
  let tenths = Int((value * 10).rounded())
  return "\(tenths / 10).\(tenths % 10)"
}
