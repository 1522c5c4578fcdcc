import Dripper

/// `--journal DIR`: the queue kept in a durable journal, so that a run stopped by a crash or a
/// `kill -9` resumes where it was. Each action is one line of text; a snapshot holds the job
/// table, the queue, the workers and the counts (not the latency histogram: latencies are those
/// of the jobs that ended since the last start).
///
/// Entries are synced every 1,000 actions: a crash loses at most those, and what they did is done
/// again after the restart (a job whose end was lost runs again under the same attempt number,
/// with the same outcome in a seeded run). Jobs run at least once.
enum Journaling {
  /// The durable journal in `directory`, whose snapshots complete `template` (the run's workers,
  /// retry policy and rate).
  static func durable(at directory: String, template: JobQueue.State) -> DurableJournal<
    JobQueue.State, JobQueue.Action
  > {
    DurableJournal(
      directory: directory, durability: .everyActions(1_000), snapshotEvery: 10_000,
      encodeAction: encode, decodeAction: decode, encodeState: encode,
      decodeState: { try decode($0, template: template) })
  }

  // MARK: - Actions

  static func encode(_ action: JobQueue.Action) -> String {
    switch action {
    case .submit(let job): "submit \(job)"
    case .cancel(let job): "cancel \(job)"
    case .retryDue(let job): "retry \(job)"
    case .shutdown: "shutdown"
    case .interrupt: "interrupt"
    case .resume: "resume"
    case .rate(.start): "rate start"
    case .rate(.refill): "rate refill"
    case .rate(.stop): "rate stop"
    case .workers(.element(let worker, let action)):
      switch action {
      case .start(let job, let attempt): "worker \(worker) start \(job) \(attempt)"
      case .succeeded(let job, let attempt): "worker \(worker) ok \(job) \(attempt)"
      case .failed(let job, let attempt, let reason): "worker \(worker) fail \(job) \(attempt) \(reason)"
      case .stop: "worker \(worker) stop"
      }
    }
  }

  static func decode(_ text: String) throws -> JobQueue.Action {
    let fields = text.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
    func number(_ index: Int) throws -> Int {
      guard index < fields.count, let value = Int(fields[index]) else { throw JournalFormatError(text) }
      return value
    }
    switch (fields.first, fields.count) {
    case ("submit", 2): return .submit(try number(1))
    case ("cancel", 2): return .cancel(try number(1))
    case ("retry", 2): return .retryDue(try number(1))
    case ("shutdown", 1): return .shutdown
    case ("interrupt", 1): return .interrupt
    case ("resume", 1): return .resume
    case ("rate", 2) where fields[1] == "start": return .rate(.start)
    case ("rate", 2) where fields[1] == "refill": return .rate(.refill)
    case ("rate", 2) where fields[1] == "stop": return .rate(.stop)
    case ("worker", 3) where fields[2] == "stop": return .workers(.element(id: try number(1), action: .stop))
    case ("worker", 5) where fields[2] == "start":
      return .workers(.element(id: try number(1), action: .start(try number(3), attempt: try number(4))))
    case ("worker", 5) where fields[2] == "ok":
      return .workers(.element(id: try number(1), action: .succeeded(try number(3), attempt: try number(4))))
    case ("worker", 6) where fields[2] == "fail":
      return .workers(
        .element(id: try number(1), action: .failed(try number(3), attempt: try number(4), reason: fields[5]))
      )
    default:
      throw JournalFormatError(text)
    }
  }

  // MARK: - Snapshots

  /// The state as lines: the counts, then one line per worker, per job and for the queue.
  static func encode(_ state: JobQueue.State) -> String {
    let metrics = state.metrics
    var lines = [
      "metrics \(metrics.submitted) \(metrics.done) \(metrics.failed) \(metrics.cancelled) \(metrics.retried)",
      "queue \(state.waiting) \(state.isShuttingDown ? 1 : 0) \(state.rate.tokens) \(state.isInterrupted ? 1 : 0)",
    ]
    for worker in state.workers {
      lines.append("worker \(worker.id) \(worker.job.map(String.init) ?? "-") \(worker.attempt)")
    }
    for job in state.jobs.values.sorted(by: { $0.id < $1.id }) {
      let (seconds, attoseconds) = job.submittedAt.components
      lines.append(
        "job \(job.id) \(code(job.status)) \(job.attempts) \(job.endings) \(seconds) \(attoseconds / 1_000_000_000)"
      )
    }
    lines.append("queued " + state.queue.elements.map(String.init).joined(separator: " "))
    return lines.joined(separator: "\n")
  }

  static func decode(_ text: String, template: JobQueue.State) throws -> JobQueue.State {
    var state = template
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ").map(String.init)
      func number(_ index: Int) throws -> Int {
        guard index < fields.count, let value = Int(fields[index]) else {
          throw JournalFormatError(String(line))
        }
        return value
      }
      switch fields.first {
      case "metrics":
        state.metrics.submitted = try number(1)
        state.metrics.done = try number(2)
        state.metrics.failed = try number(3)
        state.metrics.cancelled = try number(4)
        state.metrics.retried = try number(5)
      case "queue":
        state.waiting = try number(1)
        state.isShuttingDown = try number(2) == 1
        state.rate.tokens = try number(3)
        // A snapshot written before interruptions were kept has four fields.
        state.isInterrupted = fields.count > 4 ? try number(4) == 1 : false
      case "worker":
        let id = try number(1)
        guard state.workers[id: id] != nil else {
          throw JournalFormatError("no worker \(id) in this run: \(line)")
        }
        state.workers[id: id]?.job = fields.count > 2 && fields[2] != "-" ? try number(2) : nil
        state.workers[id: id]?.attempt = try number(3)
      case "job":
        guard fields.count == 7, let status = status(fields[2]) else {
          throw JournalFormatError(String(line))
        }
        let id = try number(1)
        let submittedAt = Duration.seconds(try number(5)) + .nanoseconds(try number(6))
        var job = Job(id: id, submittedAt: submittedAt)
        job.status = status
        job.attempts = try number(3)
        job.endings = try number(4)
        state.jobs[id] = job
      case "queued":
        for field in fields.dropFirst() {
          guard let id = Int(field) else { throw JournalFormatError(String(line)) }
          state.queue.append(id)
        }
      default:
        throw JournalFormatError(String(line))
      }
    }
    return state
  }

  private static func code(_ status: Job.Status) -> String {
    switch status {
    case .queued: "q"
    case .running(let worker): "r\(worker)"
    case .waitingToRetry: "w"
    case .done: "d"
    case .failed: "f"
    case .cancelled: "c"
    }
  }

  private static func status(_ code: String) -> Job.Status? {
    switch code {
    case "q": .queued
    case "w": .waitingToRetry
    case "d": .done
    case "f": .failed
    case "c": .cancelled
    default: code.first == "r" ? Int(code.dropFirst()).map { .running(worker: $0) } : nil
    }
  }
}

/// A journal line or a snapshot that is not the queue's.
struct JournalFormatError: Error, CustomStringConvertible {
  let text: String

  init(_ text: String) { self.text = text }

  var description: String { "not a line of the queue's journal: \(text)" }
}
