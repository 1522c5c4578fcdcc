import Dripper

/// A worker of the pool: runs one attempt of one job at a time.
struct Worker: Dripper {
  struct State: Equatable, Identifiable, Sendable {
    let id: Int
    var job: JobID?
    var attempt = 0
  }

  enum Action: Equatable, Sendable {
    case start(JobID, attempt: Int)
    /// The attempt ended well. It names its job and attempt, so that the outcome of an attempt
    /// cancelled meanwhile is never taken for the next one's.
    case succeeded(JobID, attempt: Int)
    case failed(JobID, attempt: Int, reason: String)
    case stop
  }

  /// The attempt in progress; scoped to this worker by `forEach`.
  struct AttemptID: Hashable, Sendable {}

  @Dependency(\.jobRunner) var runner

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .start(let job, let attempt):
        state.job = job
        state.attempt = attempt
        return .run { pour in
          try await runner.run(job, attempt)
          await pour(.succeeded(job, attempt: attempt))
        } catch: { error, pour in
          await pour(.failed(job, attempt: attempt, reason: "\(error)"))
        }
        .cancellable(id: AttemptID(), cancelInFlight: true)
      case .succeeded, .failed:
        // The pool sees the outcome, then frees the worker.
        return .none
      case .stop:
        state.job = nil
        return .cancel(id: AttemptID())
      }
    }
  }
}
