import Dripper

/// A job-processing service, composed: a queue, a pool of workers (`forEach`), a retry policy with
/// backoff, a rate limiter, and metrics.
///
/// Clients pour `.submit(id)` from as many tasks as they like; the queue starts jobs on idle
/// workers, as the rate limit allows, retries failures after a backoff, and counts everything.
struct JobQueue: Dripper {
  struct State: Equatable, Sendable {
    var queue = FIFO<JobID>()
    var jobs: [JobID: Job] = [:]
    var workers: IdentifiedArrayOf<Worker.State>
    var rate: RateLimiter.State
    var retry: RetryPolicy
    var metrics = Metrics()
    /// Jobs waiting for a retry.
    var waiting = 0
    var isShuttingDown = false
    /// Stopped by a signal with a journal to resume from: nothing starts, and no job is ended for
    /// it (see ``Action/interrupt``).
    var isInterrupted = false
    /// Whether `jobs` keeps a job once it has ended. A long-running service does not: its table
    /// then holds only the jobs in progress, and an ended job's id may be submitted again.
    let retainsEndedJobs: Bool

    init(
      workers: Int, retry: RetryPolicy = RetryPolicy(), startsPerSecond: Int? = nil,
      retainsEndedJobs: Bool = true
    ) {
      self.workers = IdentifiedArray((0..<workers).map { Worker.State(id: $0) })
      self.rate = RateLimiter.State(startsPerSecond: startsPerSecond)
      self.retry = retry
      self.retainsEndedJobs = retainsEndedJobs
    }

    /// Jobs queued and not started.
    var backlog: Int { queue.count }

    /// Jobs running now.
    var running: Int { workers.count { $0.job != nil } }

    /// Whether nothing is queued, running or waiting.
    var isIdle: Bool { queue.isEmpty && running == 0 && waiting == 0 }
  }

  enum Action: Equatable, Sendable {
    case submit(JobID)
    case cancel(JobID)
    case workers(IdentifiedAction<Int, Worker.Action>)
    case retryDue(JobID)
    case rate(RateLimiter.Action)
    /// Cancels every job not ended, and every job submitted from now on.
    case shutdown
    /// Stops the work in flight and starts nothing more, ending no job: what a signal does to a
    /// run with a journal, so that the next run resumes every job not ended, as after a crash.
    /// A job stopped mid-attempt runs that attempt again; one submitted meanwhile waits, queued.
    case interrupt
    /// After a restart from a journal: the attempts that were running, and the retries that were
    /// waiting, ran in a process that is gone. Each is queued again, a running attempt under its
    /// own number, so that a seeded run gives the same outcomes, interrupted or not.
    case resume
  }

  struct RetryID: Hashable, Sendable {
    let job: JobID
  }

  @Dependency(\.date) var date
  @Dependency(\.random) var random
  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Scope(state: \.rate, action: .rate) { RateLimiter() }
    Drip { state, action in
      var effects: [Effect<Action>] = []
      switch action {
      case .submit(let id):
        guard state.jobs[id] == nil else { return .none }
        state.metrics.submitted += 1
        state.jobs[id] = Job(id: id, submittedAt: .sinceEpoch(date.now))
        if state.isShuttingDown {
          end(id, as: .cancelled, in: &state)
          return .none
        }
        state.queue.append(id)
        if state.rate.startsPerSecond != nil, !state.rate.isRunning { effects.append(.send(.rate(.start))) }

      case .workers(.element(let worker, .succeeded(let job, let attempt))):
        guard isCurrent(job, attempt, on: worker, in: state) else { return .none }
        state.workers[id: worker]?.job = nil
        end(job, as: .done, in: &state)

      case .workers(.element(let worker, .failed(let job, let attempt, _))):
        guard isCurrent(job, attempt, on: worker, in: state) else { return .none }
        state.workers[id: worker]?.job = nil
        if state.retry.retries(after: attempt), !state.isShuttingDown {
          state.jobs[job]?.status = .waitingToRetry
          state.waiting += 1
          state.metrics.retried += 1
          let delay = state.retry.delay(after: attempt, random: random.double(in: 0..<1))
          // Interrupted: the retry waits for the next run, which queues it again.
          guard !state.isInterrupted else { return .none }
          effects.append(
            .run { pour in
              try await clock.sleep(for: delay)
              await pour(.retryDue(job))
            }
            .cancellable(id: RetryID(job: job)))
        } else {
          end(job, as: .failed, in: &state)
        }

      case .retryDue(let job):
        guard state.jobs[job]?.status == .waitingToRetry else { return .none }
        state.waiting -= 1
        state.jobs[job]?.status = .queued
        state.queue.append(job)

      case .cancel(let job):
        if let effect = cancel(job, in: &state) { effects.append(effect) }

      case .shutdown:
        state.isShuttingDown = true
        // The queue goes at once: removing its jobs one by one would take a pass over it each.
        let queued = state.queue.elements
        state.queue.removeAll()
        for job in queued where state.jobs[job]?.status == .queued { end(job, as: .cancelled, in: &state) }
        for job in state.jobs.values where !job.status.hasEnded {
          if let effect = cancel(job.id, in: &state) { effects.append(effect) }
        }

      case .interrupt:
        state.isInterrupted = true
        for worker in state.workers where worker.job != nil {
          effects.append(.send(.workers(.element(id: worker.id, action: .stop))))
        }
        for job in state.jobs.values where job.status == .waitingToRetry {
          effects.append(.cancel(id: RetryID(job: job.id)))
        }
        if state.rate.isRunning { effects.append(.send(.rate(.stop))) }
        return .merge(effects)

      case .resume:
        state.isInterrupted = false
        state.isShuttingDown = false
        state.rate.isRunning = false
        for (id, job) in state.jobs.sorted(by: { $0.key < $1.key }) {
          switch job.status {
          case .running(let worker):
            state.workers[id: worker]?.job = nil
            state.jobs[id]?.attempts -= 1
          case .waitingToRetry:
            state.waiting -= 1
          case .queued, .done, .failed, .cancelled:
            continue
          }
          state.jobs[id]?.status = .queued
          state.queue.append(id)
        }
        if state.rate.startsPerSecond != nil, !state.isIdle { effects.append(.send(.rate(.start))) }

      case .workers, .rate:
        break
      }
      effects += startJobs(&state)
      if state.rate.isRunning, state.isIdle { effects.append(.send(.rate(.stop))) }
      return .merge(effects)
    }
    .forEach(\.workers, action: .workers) { Worker() }
  }

  /// Starts queued jobs on idle workers, as long as the rate limit allows.
  private func startJobs(_ state: inout State) -> [Effect<Action>] {
    var effects: [Effect<Action>] = []
    while !state.isInterrupted, state.rate.allowsStart,
      let worker = state.workers.first(where: { $0.job == nil })?.id,
      let job = state.queue.popFirst()
    {
      guard state.jobs[job]?.status == .queued else { continue }
      state.rate.consume()
      state.jobs[job]!.attempts += 1
      let attempt = state.jobs[job]!.attempts
      state.jobs[job]!.status = .running(worker: worker)
      state.workers[id: worker]!.job = job
      state.workers[id: worker]!.attempt = attempt
      effects.append(.send(.workers(.element(id: worker, action: .start(job, attempt: attempt)))))
    }
    return effects
  }

  /// Cancels a job that has not ended; returns what stops its work, if it has some.
  private func cancel(_ job: JobID, in state: inout State) -> Effect<Action>? {
    guard let status = state.jobs[job]?.status, !status.hasEnded else { return nil }
    end(job, as: .cancelled, in: &state)
    switch status {
    case .queued:
      _ = state.queue.remove(job)
      return nil
    case .running(let worker):
      state.workers[id: worker]?.job = nil
      return .send(.workers(.element(id: worker, action: .stop)))
    case .waitingToRetry:
      state.waiting -= 1
      return .cancel(id: RetryID(job: job))
    case .done, .failed, .cancelled:
      return nil
    }
  }

  private func end(_ job: JobID, as status: Job.Status, in state: inout State) {
    guard var ending = state.jobs[job] else { return }
    ending.status = status
    ending.endings += 1
    state.jobs[job] = state.retainsEndedJobs ? ending : nil
    switch status {
    case .done:
      state.metrics.done += 1
      state.metrics.latencies.add(.sinceEpoch(date.now) - ending.submittedAt)
    case .failed: state.metrics.failed += 1
    case .cancelled: state.metrics.cancelled += 1
    case .queued, .running, .waitingToRetry: break
    }
  }

  private func isCurrent(_ job: JobID, _ attempt: Int, on worker: Int, in state: State) -> Bool {
    state.workers[id: worker]?.job == job && state.workers[id: worker]?.attempt == attempt
  }
}

extension CasePath<JobQueue.Action, IdentifiedAction<Int, Worker.Action>> {
  static var workers: Self {
    Self(JobQueue.Action.workers) { if case .workers(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<JobQueue.Action, RateLimiter.Action> {
  static var rate: Self { Self(JobQueue.Action.rate) { if case .rate(let a) = $0 { a } else { nil } } }
}
