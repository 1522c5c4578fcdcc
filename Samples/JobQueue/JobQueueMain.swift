import Dripper
import REPLSupport
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `swift run JobQueue --jobs 10000 --workers 8 --failure-rate 0.1 --seed 42`: the JobQueue service
/// driven by many concurrent clients, with a progress bar and a summary.
@main
enum JobQueueMain {
  static func main() async {
    let options: Options
    switch Options.parse(CommandLine.arguments.dropFirst()) {
    case .failure(let error):
      writeError("error: \(error)\n\(Options.usage)\n")
      exit(2)
    case .success(let parsed) where parsed.showHelp:
      writeOutput(Options.usage)
      exit(standardOutputStatus())
    case .success(let parsed):
      options = parsed
    }
    // Before any work starts: a signal that came before the handlers ended the process at once,
    // with no summary.
    signal(SIGINT) { stopSignal.store($0, ordering: .relaxed) }
    signal(SIGTERM) { stopSignal.store($0, ordering: .relaxed) }
    let seed = options.seed ?? UInt64.random(in: 0...UInt64.max)
    let initialState = JobQueue.State(
      workers: options.workers, retry: RetryPolicy(maximumAttempts: options.attempts),
      startsPerSecond: options.startsPerSecond, retainsEndedJobs: options.journal != nil)
    let prepare: (inout DependencyValues) -> Void = {
      $0.jobRunner = .simulated(
        failureRate: options.failureRate, seed: seed, work: .milliseconds(1)...(.milliseconds(3)),
        clock: ContinuousClock())
      $0.random = .seeded(seed)
    }
    let station: StationOf<JobQueue>
    let durable = options.journal.map { Journaling.durable(at: $0, template: initialState) }
    // The jobs a journal knows of: submitted before, ended or resumed now.
    var recoveredJobs: Set<JobID> = []
    // Jobs finished before this run, which its throughput leaves out.
    var finishedBefore = 0
    if let durable {
      do {
        station = try Station.recovering(from: durable, initialState: initialState) {
          JobQueue()
        } withDependencies: {
          prepare(&$0)
        }
      } catch {
        writeError("error: \(error)\n")
        exit(1)
      }
      let recovered = await station.state
      recoveredJobs = Set(recovered.jobs.keys)
      finishedBefore = recovered.metrics.done + recovered.metrics.failed
      if !recoveredJobs.isEmpty {
        writeOutput(
          "JobQueue: resuming from \(durable.directory): \(recovered.metrics.ended) of \(recoveredJobs.count) jobs ended before"
        )
        station.pour(.resume)
      }
    } else {
      station = Station(initialState: initialState) {
        JobQueue()
      } withDependencies: {
        prepare(&$0)
      }
    }
    let known = recoveredJobs
    // With a journal, a signal interrupts: the next run resumes what was not done, as after a
    // crash. Without one, it cancels what was not done.
    let resumable = durable != nil
    let interruption = Task { await shutDownOnInterrupt(station, resumable: resumable) }
    writeOutput(
      "JobQueue: \(options.jobs) jobs, \(options.workers) workers, failure rate \(options.failureRate), seed \(seed)"
    )
    let started = ContinuousClock.now
    let progress = Task { await Progress.report(station, total: options.jobs) }

    // The clients: each submits its share of the jobs, concurrently with the others, streaming
    // them in: a client waits while the queue's backlog is full, so memory stays the same for a
    // thousand jobs or ten million, and stops submitting on Ctrl-C. A waiting client observes
    // whether there is room, not the backlog: it is woken when the backlog crosses the limit, not
    // at each of its changes (a thousand clients took 40 s for what sixteen did in 1).
    let backlogLimit = max(256, options.workers * 32)
    let expected = await withTaskGroup(of: Int.self) { group in
      for client in 0..<options.clients {
        group.addTask {
          var submitted = 0
          for (index, job) in stride(from: client, to: options.jobs, by: options.clients).enumerated() {
            if index.isMultiple(of: 32) {
              // An interrupted queue starts nothing, so its backlog never shrinks: stop waiting.
              for await hasRoom in station.observe({ $0.backlog < backlogLimit || $0.isInterrupted })
              where hasRoom { break }
            }
            if stopSignal.load(ordering: .relaxed) != 0 { break }
            if known.contains(job) { continue }
            station.pour(.submit(job))
            submitted += 1
          }
          return submitted
        }
      }
      var total = known.count
      for await submitted in group { total += submitted }
      return total
    }
    for await finished in station.observe({
      ($0.metrics.submitted == expected && $0.metrics.ended == expected) || $0.isInterrupted
    })
    where finished { break }
    progress.cancel()
    await progress.value
    interruption.cancel()
    let elapsed = ContinuousClock.now - started
    let metrics = await station.metrics
    if let durable {
      do throws(JournalError) {
        try durable.close()
      } catch {
        writeError("error: the journal was not closed: \(error)\n")
      }
    }
    writeOutput(
      Progress.summary(
        metrics, elapsed: elapsed, attempts: options.attempts, finishedBefore: finishedBefore,
        interrupted: resumable && stopSignal.load(ordering: .relaxed) != 0))
    let status = Progress.exitStatus(metrics, stoppedBy: stopSignal.load(ordering: .relaxed))
    exit(max(status, standardOutputStatus()))
  }

  /// On SIGINT (Ctrl-C) or SIGTERM, stops the work instead of ending the process, so that the
  /// summary is printed either way: the signal handler only sets a flag (all a handler may safely
  /// do), which this task watches. With a journal (`resumable`) the jobs not ended are left to the
  /// next run; without one they are cancelled.
  private static func shutDownOnInterrupt(_ station: StationOf<JobQueue>, resumable: Bool) async {
    while !Task.isCancelled {
      if stopSignal.load(ordering: .relaxed) != 0 {
        station.pour(resumable ? .interrupt : .shutdown)
        return
      }
      try? await Task.sleep(for: .milliseconds(50))
    }
  }
}

/// The signal (SIGINT or SIGTERM) that asked the run to stop, 0 before any; set by the handlers.
let stopSignal = Atomic<Int32>(0)

/// The error of the first write to standard output that failed, 0 while none did.
let outputFailure = Atomic<Int32>(0)

/// Writes a line to standard output, unbuffered; a failure (a full disk) is kept for the exit
/// status.
func writeOutput(_ text: String) {
  var bytes = Array((text + "\n").utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeMutableBytes {
      write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
    }
    if written < 0, errno == EINTR { continue }
    guard written > 0 else {
      _ = outputFailure.compareExchange(expected: 0, desired: written < 0 ? errno : EIO, ordering: .relaxed)
      return
    }
    offset += written
  }
}

/// 0 if everything written reached standard output; 1, said in one line on standard error, if a
/// write failed (a full disk), as coreutils do: before, the run exited 0 having written nothing.
func standardOutputStatus() -> Int32 {
  let code = outputFailure.load(ordering: .relaxed)
  guard code != 0 else { return 0 }
  writeError("error: cannot write to standard output: \(String(cString: strerror(code)))\n")
  return 1
}

func writeError(_ text: String) {
  var bytes = Array(text.utf8)
  _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The command line's options.
struct Options: Equatable {
  var jobs = 1000
  var workers = 8
  var failureRate = 0.1
  var seed: UInt64?
  var clients = 16
  var startsPerSecond: Int?
  var attempts = 3
  /// The folder of a journal to resume from and record to.
  var journal: String?
  var showHelp = false

  static let usage = """
    usage: JobQueue [--jobs N] [--workers N] [--failure-rate F] [--seed N] [--clients N] [--rate N] [--attempts N] [--journal DIR]
      --jobs N          jobs to run (default 1000)
      --workers N       jobs at a time (default 8)
      --failure-rate F  chance that an attempt fails, from 0 to 1 (default 0.1)
      --seed N          makes outcomes repeatable: two runs give the same counts
      --clients N       concurrent tasks submitting the jobs (default 16)
      --rate N          most jobs started per second (default: no limit)
      --attempts N      attempts per job, the first included (default 3)
      --journal DIR     records the queue in DIR, and resumes the jobs not ended from it: run
                        again with the same flags after a crash, Ctrl-C or SIGTERM (jobs run
                        at least once)
    Progress goes to standard error: a bar on a terminal, a line a second otherwise.
    Exit status: 0 when every job succeeded, 1 when any failed, 130 after Ctrl-C
    (143 after SIGTERM, with the same summary), 2 for bad flags. Ctrl-C or SIGTERM
    cancels the jobs not ended, or, with --journal, leaves them to the next run.
    """

  static func parse(_ arguments: some Sequence<String>) -> Result<Options, OptionError> {
    var options = Options()
    var arguments = arguments.makeIterator()
    func count(_ flag: String, minimum: Int, maximum: Int = 10_000_000) -> Result<Int, OptionError> {
      guard let text = arguments.next() else { return .failure(OptionError("'\(flag)' needs a number")) }
      guard let value = Int(text), value >= minimum, value <= maximum else {
        return .failure(
          OptionError(
            "'\(flag)' needs a whole number from \(minimum) to \(maximum), not '\(text.shownInMessage())'"))
      }
      return .success(value)
    }
    while let argument = arguments.next() {
      switch argument {
      case "--help", "-h": options.showHelp = true
      case "--jobs":
        switch count("--jobs", minimum: 0) {
        case .success(let value): options.jobs = value
        case .failure(let error): return .failure(error)
        }
      case "--workers":
        switch count("--workers", minimum: 1, maximum: 1_000) {
        case .success(let value): options.workers = value
        case .failure(let error): return .failure(error)
        }
      case "--clients":
        switch count("--clients", minimum: 1, maximum: 1_000) {
        case .success(let value): options.clients = value
        case .failure(let error): return .failure(error)
        }
      case "--rate":
        switch count("--rate", minimum: 1) {
        case .success(let value): options.startsPerSecond = value
        case .failure(let error): return .failure(error)
        }
      case "--attempts":
        switch count("--attempts", minimum: 1, maximum: 20) {
        case .success(let value): options.attempts = value
        case .failure(let error): return .failure(error)
        }
      case "--failure-rate":
        guard let text = arguments.next() else {
          return .failure(OptionError("'--failure-rate' needs a number"))
        }
        guard let rate = Double(text), (0...1).contains(rate) else {
          return .failure(
            OptionError("'--failure-rate' needs a number from 0 to 1, not '\(text.shownInMessage())'"))
        }
        options.failureRate = rate
      case "--journal":
        guard let directory = arguments.next(), !directory.isEmpty else {
          return .failure(OptionError("'--journal' needs a folder"))
        }
        options.journal = directory
      case "--seed":
        guard let text = arguments.next() else { return .failure(OptionError("'--seed' needs a number")) }
        guard let seed = UInt64(text) else {
          return .failure(OptionError("'--seed' needs a whole number from 0, not '\(text.shownInMessage())'"))
        }
        options.seed = seed
      default:
        return .failure(OptionError("unknown option '\(argument.shownInMessage(limit: 40))'"))
      }
    }
    return .success(options)
  }
}

/// Why the command line is wrong, in one line.
struct OptionError: Error, Equatable, CustomStringConvertible {
  let message: String

  init(_ message: String) { self.message = message }

  var description: String { message }
}
