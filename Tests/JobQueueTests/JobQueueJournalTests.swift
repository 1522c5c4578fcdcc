import Dripper
import DripperTesting
import Foundation
import Testing

@testable import JobQueue

/// `--journal DIR`: the queue's actions and snapshots as text, and the resumption of the work a
/// process left when it ended.
@Suite struct JobQueueJournalTests {
  @Test func everyActionSurvivesItsJournalLine() throws {
    let actions: [JobQueue.Action] = [
      .submit(7), .cancel(7), .retryDue(7), .shutdown, .interrupt, .resume, .rate(.start), .rate(.refill),
      .rate(.stop),
      .workers(.element(id: 2, action: .start(7, attempt: 3))),
      .workers(.element(id: 2, action: .succeeded(7, attempt: 3))),
      .workers(.element(id: 2, action: .failed(7, attempt: 3, reason: "job 7 failed on attempt 3"))),
      .workers(.element(id: 2, action: .stop)),
    ]
    for action in actions {
      #expect(try Journaling.decode(Journaling.encode(action)) == action)
    }
    for garbage in ["", "submit", "submit x", "worker 1 start 2", "rate fast", "frobnicate 1"] {
      #expect(throws: JournalFormatError.self) { try Journaling.decode(garbage) }
    }
  }

  @Test func aSnapshotGivesTheStateBack() async throws {
    let (station, clock) = makeQueue(workers: 2, failing: [[2, 1]], work: .milliseconds(10))
    for job in 1...5 { await station.pour(.submit(job)) }
    await clock.advance(by: .milliseconds(10))
    await station.skipReceivedActions(strict: false)
    let state = station.state
    let template = JobQueue.State(workers: 2, retry: state.retry, startsPerSecond: nil)
    var decoded = try Journaling.decode(Journaling.encode(state), template: template)
    #expect(decoded.metrics.latencies.count == 0)  // not kept, by design
    decoded.metrics.latencies = state.metrics.latencies
    // The queue holds the same jobs in the same order; its storage may differ.
    #expect(Array(decoded.queue.elements) == Array(state.queue.elements))
    decoded.queue = state.queue
    #expect(decoded == state)
    await station.skipInFlightEffects(strict: false)
  }

  @Test func resumingRequeuesWhatWasRunningUnderItsOwnAttemptAndWhatWaited() async {
    // A state as a process left it: job 1 running its second attempt, job 2 waiting to retry,
    // job 3 queued, job 4 done.
    var state = JobQueue.State(workers: 2, retry: RetryPolicy(base: .milliseconds(100), jitter: 0))
    state.jobs = [
      1: Job(id: 1, status: .running(worker: 0), attempts: 2, submittedAt: .zero),
      2: Job(id: 2, status: .waitingToRetry, attempts: 1, submittedAt: .zero),
      3: Job(id: 3, status: .queued, attempts: 0, submittedAt: .zero),
      4: Job(id: 4, status: .done, attempts: 1, submittedAt: .zero, endings: 1),
    ]
    state.workers[id: 0]?.job = 1
    state.workers[id: 0]?.attempt = 2
    state.waiting = 1
    state.queue.append(3)
    state.metrics.submitted = 4
    state.metrics.done = 1
    let clock = TestClock()
    let started = Lock<[[Int]]>([])
    let station = TestStation(initialState: state) {
      JobQueue()
    } withDependencies: {
      $0.clock = clock
      $0.date = DateGenerator { Date(timeIntervalSince1970: seconds(clock.now.offset)) }
      $0.jobRunner = JobRunner { job, attempt in started.withLock { $0.append([job, attempt]) } }
    }
    station.exhaustivity = .off
    await station.pour(.resume)
    await station.finish()
    // Job 1's second attempt runs again as the second; job 2 makes its second; job 3 its first.
    #expect(started.withLock { $0 }.sorted { $0[0] < $1[0] } == [[1, 2], [2, 2], [3, 1]])
    #expect(station.state.metrics.done == 4)
    #expect(station.state.waiting == 0)
    #expect(station.state.jobs.values.allSatisfy { $0.endings <= 1 })
  }

  /// Issue 50: Ctrl-C or SIGTERM on a run with a journal cancelled every job not ended (and every
  /// job submitted after), so the next run resumed nothing. An interruption ends no job: the one
  /// running, the one waiting for a retry and the ones queued or submitted meanwhile are all left
  /// to the resume, which runs them as after a crash.
  @Test func anInterruptionEndsNoJobAndTheResumeRunsThemAll() async {
    let (station, clock) = makeQueue(workers: 1, failing: [[2, 1]], work: .seconds(1))
    await station.pour(.submit(2))
    await clock.advance(by: .seconds(1))  // job 2's first attempt fails: it waits to retry
    await station.pour(.submit(1))
    await station.pour(.submit(3))
    await clock.advance(by: .milliseconds(50))  // job 1 runs, job 3 is queued
    await station.skipReceivedActions(strict: false)
    #expect(station.state.jobs[2]?.status == .waitingToRetry)
    #expect(station.state.jobs[1]?.status == .running(worker: 0))
    await station.pour(.interrupt)
    await station.pour(.submit(4))
    await clock.run()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.metrics.ended == 0)
    #expect(station.state.jobs.values.map(\.status).filter(\.hasEnded).isEmpty)
    #expect(station.state.queue.elements.sorted() == [3, 4])
    #expect(station.state.waiting == 1)

    // The next run: the journal's state, resumed.
    await station.pour(.resume)
    await clock.run()
    await station.skipReceivedActions(strict: false)
    #expect(station.state.metrics.done == 4)
    #expect(station.state.metrics.cancelled == 0)
    #expect(station.state.jobs[1]?.attempts == 1)
    #expect(station.state.jobs[2]?.attempts == 2)
    await station.finish()
  }
}
