public import Dripper
public import Foundation

/// Notes of any length, one a request, each answered with how many the key holds: the feature a
/// host fills a disk with in the tests of its output gate. Each note's effect tells the outside
/// world (`tell`), which must never hear of a note its key then loses.
public struct HostedNotes: Dripper {
  /// The notes a key holds, by their numbers.
  public struct State: Equatable, Sendable, Codable {
    /// The numbers of the notes, in the order they were taken.
    public var notes: [Int] = []

    /// No notes.
    public init() {}
  }

  /// What a key is poured.
  public enum Action: Equatable, Sendable, Codable, ReplyingAction {
    /// How many notes the key holds, once it took this one.
    public typealias Reply = Int
    /// Takes note `number`, of `text`.
    case note(Int, String)
  }

  let key: String
  let tell: @Sendable (String) -> Void

  /// The notes of `key`, whose effects `tell` what they took.
  public init(key: String, tell: @escaping @Sendable (String) -> Void) {
    self.key = key
    self.tell = tell
  }

  /// Takes a note, answers, and tells.
  public var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .note(let number, _):
        state.notes.append(number)
        return .merge(.reply(state.notes.count), .run { [key, tell] _ in tell("told \(key) \(number)") })
      }
    }
  }
}

/// An alarm set for a wall-clock time, as a reminder: the feature of the tests of reminders moved
/// and crashed.
public struct HostedAlarm: Dripper {
  /// How often it rang, and how often it was poked.
  public struct State: Equatable, Sendable, Codable {
    /// Rings so far.
    public var rings = 0
    /// Pokes so far.
    public var pokes = 0

    /// Rung `rings` times, poked `pokes` times.
    public init(rings: Int = 0, pokes: Int = 0) {
      self.rings = rings
      self.pokes = pokes
    }
  }

  /// What an alarm is poured.
  public enum Action: Equatable, Sendable, Codable {
    /// Sets the alarm (reminder `alarm`) for `date`, replacing the one set before.
    case set(Date)
    /// It rings.
    case ring
    /// Anything else.
    case poke
  }

  /// An alarm.
  public init() {}

  /// Sets, rings, is poked.
  public var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .set(let date): return .remind(.ring, at: date, id: "alarm")
      case .ring: state.rings += 1
      case .poke: state.pokes += 1
      }
      return .none
    }
  }
}
