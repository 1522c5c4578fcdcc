import Dripper
import DripperTesting
import Foundation
import Synchronization
import Testing

@testable import JobQueue

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct JobQueueOptionTests {
  @Test func theExampleCommandLineParses() throws {
    let options = try Options.parse([
      "--jobs", "10000", "--workers", "8", "--failure-rate", "0.1", "--seed", "42",
    ]).get()
    #expect(options == Options(jobs: 10_000, workers: 8, failureRate: 0.1, seed: 42))
  }

  @Test(arguments: [
    (["--jobs"], "'--jobs' needs a number"),
    (["--jobs", "-1"], "'--jobs' needs a whole number from 0 to 10000000, not '-1'"),
    (["--workers", "0"], "'--workers' needs a whole number from 1 to 1000, not '0'"),
    (["--failure-rate", "2"], "'--failure-rate' needs a number from 0 to 1, not '2'"),
    (["--seed", "x"], "'--seed' needs a whole number from 0, not 'x'"),
    (["--failure-rate"], "'--failure-rate' needs a number"),
    (["--seed"], "'--seed' needs a number"),
    (["--seed", "1\r2"], #"'--seed' needs a whole number from 0, not '1\r2'"#),
    (["--verbose"], "unknown option '--verbose'"),
  ])
  func badFlagsAreExplainedInOneLine(arguments: [String], message: String) {
    #expect(Options.parse(arguments) == .failure(OptionError(message)))
  }

  @Test func theSummaryShowsCountsAndPercentiles() {
    let metrics = Metrics(
      submitted: 4, done: 3, failed: 1, retried: 2,
      latencies: [.milliseconds(1), .milliseconds(2), .milliseconds(9)])
    let summary = Progress.summary(metrics, elapsed: .seconds(2), attempts: 3)
    #expect(summary.contains("  done                 3"))
    #expect(summary.contains("  failed               1  after 3 attempts"))
    #expect(summary.contains("  p50 latency     2.0 ms"))
    // Within 1/32 above the true latency: the top of the histogram's bucket (9,216 µs for 9 ms).
    #expect(summary.contains("  p99 latency     9.2 ms"))
    // Throughput counts the 4 jobs that finished, over 2 s.
    #expect(summary.contains("  elapsed          2.0 s  2 jobs/s finished"))
  }

  /// The latencies are a histogram of fixed size: a quantile is within 1/32 above the truth for any
  /// latency, and ten million jobs take no more memory than one (every latency was kept before:
  /// 51 MB for 800,000 jobs).
  @Test func latenciesAreKeptInConstantSpace() {
    var histogram = LatencyHistogram()
    for microseconds in 1...100_000 { histogram.add(.microseconds(microseconds)) }
    for quantile in [0.01, 0.5, 0.9, 0.99, 1.0] {
      let truth = Double(Int(quantile * 100_000))
      let value = histogram.value(at: quantile)!
      let measured = Double(value.components.seconds) * 1e6 + Double(value.components.attoseconds) / 1e12
      #expect(
        measured >= truth && measured <= truth * (1 + 1.0 / 32) + 1, "quantile \(quantile): \(measured) µs")
    }
    for _ in 0..<100_000 { histogram.add(.seconds(1)) }
    #expect(histogram.count == 200_000)
    #expect(histogram.value(at: 0.75)! >= .seconds(1) && histogram.value(at: 0.75)! <= .milliseconds(1_032))
  }

  @Test func theSummaryStaysAlignedForLargeValues() {
    let metrics = Metrics(submitted: 12_345_678_901, done: 12_345_678_900, failed: 1, cancelled: 0)
    let lines = Progress.summary(metrics, elapsed: .seconds(1), attempts: 3).split(separator: "\n")
    // Every value ends in the same column, the widest value's.
    #expect(lines.count == 8)
    #expect(lines[0] == "  submitted   12345678901")
    #expect(lines[1] == "  done        12345678900")
    #expect(lines[3] == "  cancelled             0")
    #expect(lines[4] == "  retries               0")
    #expect(lines[2] == "  failed                1  after 3 attempts")
  }

  @Test func cancelledJobsDoNotCountAsThroughput() {
    let metrics = Metrics(submitted: 10, done: 2, failed: 0, cancelled: 8)
    #expect(Progress.summary(metrics, elapsed: .seconds(1), attempts: 3).hasSuffix("2 jobs/s finished"))
  }

  @Test(arguments: [20, 40, 60, 80, 200])
  func theProgressBarFitsTheTerminal(columns: Int) {
    let metrics = Metrics(submitted: 1_000_000, done: 450_000, failed: 12_345, retried: 98_765)
    let bar = Progress.bar(metrics, running: 8, total: 1_000_000, columns: columns)
    #expect(bar.count <= columns - 1)
    #expect(bar.contains("46%") || columns < 10)
    #expect(bar.hasPrefix("[") == (columns >= 100))
  }

  @Test func theExitStatusSaysWhetherEveryJobSucceeded() {
    #expect(Progress.exitStatus(Metrics(submitted: 2, done: 2)) == 0)
    #expect(Progress.exitStatus(Metrics(submitted: 2, done: 1, failed: 1)) == 1)
    #expect(Progress.exitStatus(Metrics(submitted: 2, failed: 2)) == 1)
    #expect(Progress.exitStatus(Metrics(submitted: 2, done: 1, cancelled: 1), stoppedBy: SIGINT) == 130)
    #expect(Progress.exitStatus(Metrics(submitted: 2, failed: 1, cancelled: 1), stoppedBy: SIGTERM) == 143)
  }

  @Test func aServiceKeepsOnlyTheJobsInProgress() async {
    let clock = TestClock()
    let station = TestStation(initialState: JobQueue.State(workers: 1, retainsEndedJobs: false)) {
      JobQueue()
    } withDependencies: {
      $0.clock = clock
      $0.date = DateGenerator { Date(timeIntervalSince1970: seconds(clock.now.offset)) }
      $0.jobRunner = scriptedRunner(work: .seconds(1), clock: clock)
    }
    station.exhaustivity = .off
    await station.pour(.submit(1))
    await station.pour(.submit(2))
    #expect(station.state.jobs.keys.sorted() == [1, 2])
    await clock.advance(by: .seconds(1))
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs.keys.sorted() == [2])
    await clock.run()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs.isEmpty)
    #expect(station.state.metrics.done == 2)
    await station.finish()
  }
}
