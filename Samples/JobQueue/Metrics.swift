import Dripper

/// What the queue has done so far.
struct Metrics: Equatable, Sendable {
  var submitted = 0
  var done = 0
  var failed = 0
  var cancelled = 0
  /// Attempts started again after a failure.
  var retried = 0
  /// From submission to the end, for each job done: a histogram of fixed size, whatever the
  /// number of jobs (every latency was kept before: 51 MB for 800,000 jobs).
  var latencies = LatencyHistogram()

  /// Jobs that have ended.
  var ended: Int { done + failed + cancelled }

  /// The latency below which a fraction `quantile` of jobs done ended, or `nil` without any: within
  /// 1/32 of the true value (see ``LatencyHistogram``).
  func latency(quantile: Double) -> Duration? {
    latencies.value(at: quantile)
  }
}

/// Latencies counted in buckets that are 1/32 of their size wide (32 buckets per power of two, from
/// 1 µs to over 4 hours), in a fixed array of counts: adding one and reading a quantile cost the
/// same for a thousand jobs or ten million, and a quantile is within 1/32 of the true latency.
struct LatencyHistogram: Equatable, Sendable {
  /// Sub-buckets per power of two.
  private static let resolution = 32
  /// Powers of two of microseconds covered (2^34 µs: over 4 hours; longer ones count in the last).
  private static let powers = 34
  private var counts = [Int](repeating: 0, count: resolution * powers)
  private(set) var count = 0

  /// Counts one latency.
  mutating func add(_ duration: Duration) {
    counts[Self.bucket(of: duration)] += 1
    count += 1
  }

  /// The latency below which `quantile` of those counted fall: the top of the bucket it falls in.
  func value(at quantile: Double) -> Duration? {
    guard count > 0 else { return nil }
    let rank = max(Int((quantile * Double(count)).rounded(.up)), 1)
    var seen = 0
    for (bucket, bucketCount) in counts.enumerated() where bucketCount > 0 {
      seen += bucketCount
      if seen >= rank { return Self.top(of: bucket) }
    }
    return Self.top(of: counts.count - 1)
  }

  private static func bucket(of duration: Duration) -> Int {
    let microseconds = max(
      duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000, 0)
    guard microseconds >= Int64(resolution) else { return Int(microseconds) }
    // The power of two at or below the value, counted from `resolution`.
    let power = (63 - microseconds.leadingZeroBitCount) - (resolution.trailingZeroBitCount)
    let sub = Int(microseconds >> Int64(power)) - resolution
    return min((power + 1) * resolution + sub, resolution * powers - 1)
  }

  private static func top(of bucket: Int) -> Duration {
    guard bucket >= resolution else { return .microseconds(bucket + 1) }
    let power = bucket / resolution - 1
    let sub = bucket % resolution
    return .microseconds((Int64(resolution + sub + 1)) << Int64(power))
  }
}

extension LatencyHistogram: ExpressibleByArrayLiteral {
  /// The histogram of these latencies.
  init(arrayLiteral latencies: Duration...) {
    self.init()
    for latency in latencies { add(latency) }
  }
}
