import Dripper

/// What the queue has done so far.
struct Metrics: Equatable, Sendable {
  var submitted = 0
  var done = 0
  var failed = 0
  var cancelled = 0
  /// Attempts started again after a failure.
  var retried = 0
  /// From submission to the end, for each job done.
  var latencies: [Duration] = []

  /// Jobs that have ended.
  var ended: Int { done + failed + cancelled }

  /// The latency below which a fraction `quantile` of jobs done ended, or `nil` without any.
  func latency(quantile: Double) -> Duration? {
    guard !latencies.isEmpty else { return nil }
    let sorted = latencies.sorted()
    let rank = Int((quantile * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }
}
