public import Dripper

/// A feature whose effects pour back and whose actions `.send` follow-ups: everything a journal
/// must record, in the order the Station reduces it. Shared by the journal tests of Dripper and of
/// DripperTesting.
public struct JournaledTimer: Dripper {
  /// The ticks counted and what was noted.
  public struct State: Equatable, Sendable {
    /// Ticks reduced.
    public var ticks = 0
    /// `start N` for each start, and each note.
    public var log: [String] = []

    /// A timer that has not started.
    public init(ticks: Int = 0, log: [String] = []) {
      self.ticks = ticks
      self.log = log
    }
  }

  /// What the timer does.
  public enum Action: Equatable, Sendable {
    /// Sends `.note("started")` and starts an effect that pours `count` ticks.
    case start(Int)
    /// Counts one tick.
    case tick
    /// Appends to the log.
    case note(String)
  }

  /// The timer.
  public init() {}

  /// Logs, counts and starts ticking.
  public var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .start(let count):
        state.log.append("start \(count)")
        return .merge(
          .send(.note("started")),
          .run { pour in
            for _ in 0..<count { await pour(.tick) }
          })
      case .tick:
        state.ticks += 1
        return .none
      case .note(let text):
        state.log.append(text)
        return .none
      }
    }
  }
}

extension JournaledTimer.Action {
  /// The journal's text of the action.
  public var journaled: String {
    switch self {
    case .start(let count): "start \(count)"
    case .tick: "tick"
    case .note(let text): "note \(text)"
    }
  }

  /// The action a journal's text holds.
  public init(journaled text: String) throws {
    if text == "tick" {
      self = .tick
    } else if text.hasPrefix("start "), let count = Int(text.dropFirst(6)) {
      self = .start(count)
    } else if text.hasPrefix("note ") {
      self = .note(String(text.dropFirst(5)))
    } else {
      throw JournalError("not an action: \(text)")
    }
  }
}
