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

/// A runner whose attempts take `work` on the clock, and fail for the attempts listed.
func scriptedRunner(failing: Set<[Int]> = [], work: Duration = .zero, clock: any Clock<Duration>) -> JobRunner
{
  JobRunner { job, attempt in
    if work > .zero { try await clock.sleep(for: work) }
    if failing.contains([job, attempt]) { throw JobFailure(job: job, attempt: attempt) }
  }
}

/// A TestStation of the queue on a test clock; the test checks what it asserts.
/// A duration in seconds, for a `Date` a test clock's time after 1970.
func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func makeQueue(
  workers: Int = 2, retry: RetryPolicy = RetryPolicy(base: .milliseconds(100), jitter: 0), rate: Int? = nil,
  failing: Set<[Int]> = [], work: Duration = .zero
) -> (TestStation<JobQueue.State, JobQueue.Action>, TestClock) {
  let clock = TestClock()
  let station = TestStation(
    initialState: JobQueue.State(workers: workers, retry: retry, startsPerSecond: rate)
  ) {
    JobQueue()
  } withDependencies: {
    $0.clock = clock
    $0.date = DateGenerator { Date(timeIntervalSince1970: seconds(clock.now.offset)) }
    $0.jobRunner = scriptedRunner(failing: failing, work: work, clock: clock)
  }
  station.exhaustivity = .off
  return (station, clock)
}

@Suite struct JobQueueTests {
  @Test func aFailedAttemptIsRetriedAfterAnExponentialBackoff() async {
    let (station, clock) = makeQueue(failing: [[1, 1], [1, 2]])
    await station.pour(.submit(1))
    await clock.advance()  // lets the first attempt run and fail
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.status == .waitingToRetry)
    #expect(station.state.jobs[1]?.attempts == 1)
    await clock.advance(by: .milliseconds(99))
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.attempts == 1)
    await clock.advance(by: .milliseconds(1))  // 100 ms after the first failure
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.attempts == 2)
    await clock.advance(by: .milliseconds(199))
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.attempts == 2)
    await clock.advance(by: .milliseconds(1))  // 200 ms after the second
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.status == .done)
    #expect(station.state.metrics.retried == 2)
    #expect(station.state.metrics.latencies == [.milliseconds(300)])
    await station.finish()
  }

  @Test func aJobFailsForGoodAfterItsLastAttempt() async {
    let (station, clock) = makeQueue(failing: [[1, 1], [1, 2], [1, 3]])
    await station.pour(.submit(1))
    await clock.run()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.status == .failed)
    #expect(station.state.jobs[1]?.attempts == 3)
    #expect(station.state.metrics == Metrics(submitted: 1, failed: 1, retried: 2))
    await station.finish()
  }

  @Test func theJitterSpreadsTheBackoff() {
    let policy = RetryPolicy(base: .milliseconds(10), cap: .seconds(1), jitter: 0.5)
    #expect(policy.delay(after: 1, random: 0) == .milliseconds(10))
    #expect(policy.delay(after: 1, random: 0.5) == .microseconds(12_500))
    #expect(policy.delay(after: 3, random: 0) == .milliseconds(40))
    #expect(policy.delay(after: 20, random: 0) == .seconds(1))
  }

  @Test func cancellingAQueuedARunningAndAWaitingJob() async {
    let (station, clock) = makeQueue(workers: 1, failing: [[2, 1]], work: .seconds(1))
    await station.pour(.submit(1))  // runs
    await station.pour(.submit(2))  // queued
    await station.pour(.cancel(2))
    #expect(station.state.jobs[2]?.status == .cancelled)
    #expect(station.state.queue.isEmpty)
    await station.pour(.cancel(1))
    #expect(station.state.jobs[1]?.status == .cancelled)
    #expect(station.state.running == 0)
    await station.pour(.submit(3))
    await clock.advance(by: .seconds(1))
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[3]?.status == .done)
    // Job 1's attempt was cancelled: its outcome never came, and it ended once.
    #expect(station.state.jobs[1]?.endings == 1)
    #expect(station.state.metrics == Metrics(submitted: 3, done: 1, cancelled: 2, latencies: [.seconds(1)]))
    await station.finish()
  }

  @Test func cancellingAJobWaitingForARetryStopsItsTimer() async {
    let (station, clock) = makeQueue(failing: [[1, 1]])
    await station.pour(.submit(1))
    await clock.advance()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.status == .waitingToRetry)
    await station.pour(.cancel(1))
    await clock.run()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[1]?.status == .cancelled)
    #expect(station.state.jobs[1]?.attempts == 1)
    await station.finish()
  }

  @Test func theRateLimitCapsStartsPerSecond() async {
    let (station, clock) = makeQueue(workers: 8, rate: 5)
    for job in 0..<12 { await station.pour(.submit(job)) }
    await clock.advance()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.metrics.done == 5)
    await clock.advance(by: .seconds(1))
    await station.skipReceivedActions(strict: false)
    #expect(station.state.metrics.done == 10)
    await clock.advance(by: .seconds(1))
    await station.skipReceivedActions(strict: false)
    #expect(station.state.metrics.done == 12)
    // Idle again: the refill timer stopped.
    #expect(!station.state.rate.isRunning)
    await station.finish()
  }

  @Test func theWorkerLimitIsNeverExceeded() async {
    let clock = TestClock()
    let violations = Lock<[String]>([])
    let watcher = DripperObserver<JobQueue.State, JobQueue.Action>(willReduce: { _, state in
      let running = state.jobs.values.filter { if case .running = $0.status { true } else { false } }
      if running.count > state.workers.count || state.running > state.workers.count {
        violations.withLock { $0.append("\(running.count) running on \(state.workers.count) workers") }
      }
    })
    let station = Station(initialState: JobQueue.State(workers: 3), observers: [watcher]) {
      JobQueue()
    } withDependencies: {
      $0.clock = clock
      $0.jobRunner = scriptedRunner(failing: [[4, 1], [7, 1]], work: .milliseconds(10), clock: clock)
    }
    for job in 0..<20 { station.pour(.submit(job)) }
    await clock.run()
    #expect(await station.metrics.done == 20)
    #expect(violations.withLock { $0 }.isEmpty)
  }

  @Test func tenThousandJobsEachEndExactlyOnce() async {
    let seed: UInt64 = 42
    let clock = ImmediateClock()
    let station = Station(initialState: JobQueue.State(workers: 8)) {
      JobQueue()
    } withDependencies: {
      $0.clock = clock
      $0.jobRunner = .simulated(failureRate: 0.1, seed: seed, work: .zero...(.zero), clock: clock)
      $0.random = .seeded(seed)
    }
    await withTaskGroup(of: Void.self) { group in
      for client in 0..<16 {
        group.addTask {
          for job in stride(from: client, to: 10_000, by: 16) { station.pour(.submit(job)) }
        }
      }
    }
    for await ended in station.observe(\.metrics.ended) where ended == 10_000 { break }
    let state = await station.state
    #expect(state.jobs.count == 10_000)
    #expect(state.jobs.values.allSatisfy { $0.endings == 1 && ($0.status == .done || $0.status == .failed) })
    // The outcomes depend on the seed alone: count them again, without the queue.
    var expected = Metrics(submitted: 10_000)
    for job in 0..<10_000 {
      var attempt = 1
      while true {
        let random = RandomGenerator.seeded(
          seed ^ (UInt64(job) &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(attempt) << 48)
        _ = random.int(in: 0...1_000_000)
        if random.double(in: 0..<1) >= 0.1 {
          expected.done += 1
          break
        }
        if attempt == 3 {
          expected.failed += 1
          break
        }
        expected.retried += 1
        attempt += 1
      }
    }
    var actual = state.metrics
    actual.latencies = []
    #expect(actual == expected)
  }

  @Test func submissionsAfterAShutdownAreCancelled() async {
    let (station, clock) = makeQueue(workers: 1, work: .seconds(1))
    await station.pour(.submit(1))
    await station.pour(.submit(2))
    await station.pour(.shutdown)
    await station.pour(.submit(3))
    await clock.run()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.metrics.cancelled == 3)
    #expect(station.state.isIdle)
    await station.finish()
  }
}
