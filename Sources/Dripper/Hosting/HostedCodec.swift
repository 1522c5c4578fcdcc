#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How a key kept in a folder writes its hosted actions and state: the feature's own text, in an
/// envelope that says what the host added (a request id, the reminders due, the request window,
/// the reminders). The envelope has a version of its own, in the snapshot's first line
/// (`dripper-host 1`), so that a later Dripper can read it and an earlier one refuses it clearly;
/// the feature's text inside is versioned by its ``JournalSchema``.
///
/// An entry is one line: `a TEXT` for an action, `r NONCE LENGTH:ID TEXT` for a request,
/// `f SECONDS` for the reminders due at a date (seconds since 1970, as Swift prints a `Double`:
/// exactly). A snapshot is lines: `dripper-host 1`, `sequence N`, a `request SEQUENCE NONCE ID`
/// per request remembered (oldest first), a `reminder SECONDS ID` per reminder followed by its
/// action's text, then `state` and the feature's state, to the end.
enum HostedCodec {
  static let header = "dripper-host 1"

  struct Malformed: Error, CustomStringConvertible {
    let what: String
    var description: String { "not a hosted key's \(what)" }
  }

  /// The envelope around `codec`: for a schema's current version, or, with `migrate`, for an
  /// older one.
  static func codec<State: Sendable, Action: Sendable>(
    _ codec: JournalCodec<State, Action>, requestWindow: Int
  ) -> JournalCodec<HostedState<State, Action>, HostedAction<Action>> {
    JournalCodec(
      encodeAction: { encode($0, codec.encodeAction) },
      decodeAction: { try decode($0, codec.decodeAction) },
      encodeState: { try encode($0, state: codec.encodeState, action: codec.encodeAction) },
      decodeState: {
        try decode($0, window: requestWindow, state: codec.decodeState, action: codec.decodeAction)
      })
  }

  /// The schema of the envelope: the feature's version, its migrations applied inside.
  static func schema<State: Sendable, Action: Sendable>(
    _ schema: JournalSchema<State, Action>, requestWindow: Int
  ) -> JournalSchema<HostedState<State, Action>, HostedAction<Action>> {
    JournalSchema(version: schema.version) { text, version in
      try decode(
        text, window: requestWindow, state: { try schema.migrateState($0, version) },
        action: { try schema.migrateAction($0, version) })
    } migrateAction: { text, version in
      try decode(text) { try schema.migrateAction($0, version) }
    }
  }

  // MARK: - Actions

  static func encode<Action>(_ action: HostedAction<Action>, _ text: (Action) -> String) -> String {
    switch action {
    case .action(let action): "a " + text(action)
    case .request(let id, let nonce, let action): "r \(hex(nonce)) \(id.utf8.count):\(id) " + text(action)
    case .fireDue(let date): "f \(date.timeIntervalSince1970)"
    }
  }

  static func decode<Action>(_ line: String, _ decode: (String) throws -> Action) throws -> HostedAction<
    Action
  > {
    let bytes = Array(line.utf8)
    guard bytes.count >= 2, bytes[1] == UInt8(ascii: " ") else { throw Malformed(what: "entry") }
    let rest = bytes[2...]
    switch bytes[0] {
    case UInt8(ascii: "a"):
      return .action(try decode(String(decoding: rest, as: UTF8.self)))
    case UInt8(ascii: "f"):
      guard let seconds = Double(String(decoding: rest, as: UTF8.self)), seconds.isFinite else {
        throw Malformed(what: "entry")
      }
      return .fireDue(Date(timeIntervalSince1970: seconds))
    case UInt8(ascii: "r"):
      guard rest.count > 17, let nonce = JournalLine.hex(rest.prefix(16)), rest[rest.startIndex + 16] == 32,
        let colon = rest.dropFirst(17).firstIndex(of: UInt8(ascii: ":")),
        let length = Int(String(decoding: rest[(rest.startIndex + 17)..<colon], as: UTF8.self)),
        length >= 0, colon + 1 + length < rest.endIndex, rest[colon + 1 + length] == 32
      else { throw Malformed(what: "entry") }
      let id = String(decoding: rest[(colon + 1)..<(colon + 1 + length)], as: UTF8.self)
      let text = String(decoding: rest[(colon + 2 + length)...], as: UTF8.self)
      return .request(id: id, nonce: nonce, try decode(text))
    default:
      throw Malformed(what: "entry")
    }
  }

  // MARK: - States

  static func encode<State, Action>(
    _ state: HostedState<State, Action>, state encodeState: (State) throws -> String,
    action encodeAction: (Action) -> String
  ) throws -> String {
    var lines = [header, "sequence \(state.sequence)"]
    for id in state.requests.ids {
      guard let entry = state.requests[id] else { continue }
      lines.append("request \(entry.sequence) \(hex(entry.nonce)) \(JournalLine.escape(id))")
    }
    for (id, reminder) in state.reminders.sorted(by: { $0.key < $1.key }) {
      lines.append("reminder \(reminder.deadline.timeIntervalSince1970) \(JournalLine.escape(id))")
      lines.append(JournalLine.escape(encodeAction(reminder.action)))
    }
    lines.append("state")
    return lines.joined(separator: "\n") + "\n" + (try encodeState(state.value))
  }

  static func decode<State, Action>(
    _ text: String, window: Int, state decodeState: (String) throws -> State,
    action decodeAction: (String) throws -> Action
  ) throws -> HostedState<State, Action> {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
    guard lines.popFirst() == Substring(header) else {
      throw Malformed(what: "snapshot (its first line is not '\(header)': a later Dripper wrote it?)")
    }
    var sequence: UInt64?
    var requests = RequestWindow(capacity: window)
    var reminders: [String: PendingReminder<Action>] = [:]
    while let line = lines.popFirst() {
      let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
      switch fields.first {
      case "sequence":
        guard fields.count == 2, let value = UInt64(fields[1]) else { throw Malformed(what: "snapshot") }
        sequence = value
      case "request":
        guard fields.count == 4, let number = UInt64(fields[1]),
          let nonce = JournalLine.hex(Array(fields[2].utf8)[...]),
          let id = JournalLine.unescape(Array(fields[3].utf8)[...])
        else { throw Malformed(what: "snapshot") }
        requests.insert(id, RequestWindow.Entry(sequence: number, nonce: nonce))
      case "reminder":
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let seconds = Double(parts[1]), seconds.isFinite,
          let id = JournalLine.unescape(Array(parts[2].utf8)[...]), let actionLine = lines.popFirst(),
          let actionText = JournalLine.unescape(Array(actionLine.utf8)[...])
        else { throw Malformed(what: "snapshot") }
        reminders[id] = PendingReminder(
          deadline: Date(timeIntervalSince1970: seconds), action: try decodeAction(actionText))
      case "state":
        guard let sequence else { throw Malformed(what: "snapshot") }
        var state = HostedState<State, Action>(
          value: try decodeState(lines.joined(separator: "\n")), requestWindow: window)
        state.sequence = sequence
        state.requests = requests
        state.reminders = reminders
        return state
      default:
        throw Malformed(what: "snapshot")
      }
    }
    throw Malformed(what: "snapshot")
  }

  private static func hex(_ value: UInt64) -> String {
    var bytes: [UInt8] = []
    JournalLine.appendHex(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
