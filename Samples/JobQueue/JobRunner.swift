import Dripper

/// How an attempt at a job runs: the JobQueue's dependency on the outside world.
struct JobRunner: Sendable {
  /// Runs attempt `attempt` (from 1) of job `job`; throws if it fails.
  var run: @Sendable (_ job: JobID, _ attempt: Int) async throws -> Void

  /// A stand-in for real work: each attempt takes a while on `clock` and fails with probability
  /// `failureRate`. Both depend only on `seed`, the job and the attempt, so a seeded run has the
  /// same outcomes whatever order concurrent clients submit in.
  static func simulated(
    failureRate: Double, seed: UInt64, work: ClosedRange<Duration>, clock: any Clock<Duration>
  ) -> JobRunner {
    JobRunner { job, attempt in
      let random = RandomGenerator.seeded(
        seed ^ (UInt64(job) &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(attempt) << 48)
      let span = (work.upperBound - work.lowerBound) / 1_000_000
      let duration = work.lowerBound + span * random.int(in: 0...1_000_000)
      let fails = random.double(in: 0..<1) < failureRate
      try await clock.sleep(for: duration)
      if fails { throw JobFailure(job: job, attempt: attempt) }
    }
  }
}

/// A failed attempt.
struct JobFailure: Error, Equatable, CustomStringConvertible {
  let job: JobID
  let attempt: Int

  var description: String { "job \(job) failed on attempt \(attempt)" }
}

extension DependencyValues {
  /// How jobs run. Tests set their own; there is no live value to fall back on.
  var jobRunner: JobRunner {
    get { self[JobRunnerKey.self] }
    set { self[JobRunnerKey.self] = newValue }
  }
}

private enum JobRunnerKey: DependencyKey {
  static let liveValue = JobRunner { _, _ in }
  static let testValue = JobRunner { _, _ in }
}
