import Dripper

/// When a failed job is tried again: exponential backoff, capped, with jitter.
struct RetryPolicy: Equatable, Sendable {
  /// Attempts in all, the first included.
  var maximumAttempts = 3
  /// The wait after the first failure; it doubles after each next one.
  var base = Duration.milliseconds(10)
  /// The longest wait, before jitter.
  var cap = Duration.seconds(1)
  /// Up to this fraction of the wait is added at random, so that failures together do not retry
  /// together.
  var jitter = 0.5

  /// Whether a job that failed its attempt `attempt` is tried again.
  func retries(after attempt: Int) -> Bool { attempt < maximumAttempts }

  /// The wait before the attempt after `attempt`, with `random` in `0..<1` choosing the jitter.
  func delay(after attempt: Int, random: Double) -> Duration {
    let exponential = base * (1 << min(attempt - 1, 30))
    let capped = min(exponential, cap)
    return capped + capped * (jitter * random)
  }
}
