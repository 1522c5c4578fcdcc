@testable import Dripper

/// A feature whose state records every action it reduced: the fixture of the ordering tests.
struct Log: Dripper {
  struct State: Equatable, Sendable {
    var entries: [String] = []
  }

  enum Action: Equatable, Sendable {
    case record(String)
    /// Records, then sends `then` with `Effect.send`.
    case recordThenSend(String, then: String)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .record(let entry):
        state.entries.append(entry)
        return .none
      case .recordThenSend(let entry, let next):
        state.entries.append(entry)
        return .send(.record(next))
      }
    }
  }
}

/// A feature whose one action runs the effect it carries, for tests of effects.
struct Runner: Dripper {
  struct State: Equatable, Sendable {
    var log: [String] = []
  }

  enum Action: Sendable {
    indirect case run(Effect<Action>)
    case record(String)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .run(let effect):
        return effect
      case .record(let entry):
        state.log.append(entry)
        return .none
      }
    }
  }
}

/// Collects the diagnostics a Station reports.
final class DiagnosticsSink: Sendable {
  let recorder = Recorder<Diagnostic>()

  /// Installs the sink in a Station's dependencies.
  func install(_ dependencies: inout DependencyValues) {
    dependencies.reporter = { [recorder] in recorder.append($0) }
  }

  var all: [Diagnostic] { recorder.all }
}
