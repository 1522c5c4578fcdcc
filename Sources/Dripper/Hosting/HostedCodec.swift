#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How a key kept in a folder writes its hosted actions and state: the feature's own text, in an
/// envelope that says what the host added (a request id, the reminders due, the request window,
/// the reminders). The envelope has a version of its own, in the snapshot's first line
/// (`dripper-host 2`), so that a later Dripper can read it and an earlier one refuses it clearly;
/// the feature's text inside is versioned by its ``JournalSchema``.
///
/// An entry is one line: `a TEXT` for an action; `q NONCE FINGERPRINT SECONDS LENGTH:ID TEXT` for
/// a request (the nonce and the fingerprint in hex, the time in seconds since 1970); `f SECONDS`
/// for the reminders due at a date (seconds as Swift prints a `Double`: exactly). A snapshot is
/// lines: `dripper-host 2`, `sequence N`, per request remembered (oldest first) a
/// `request SEQUENCE NONCE FINGERPRINT SECONDS ID` and its answer (`reply TEXT`, or `noreply`), a
/// `reminder SECONDS ID` per reminder followed by its action's text, then `state` and the
/// feature's state, to the end.
///
/// Version 1, which Dripper wrote before requests had fingerprints, times and replies, is read:
/// its requests (`r NONCE LENGTH:ID TEXT`, `request SEQUENCE NONCE ID`) have none, so their ids
/// are kept until newer ids push them out by count, and their retries are not checked.
enum HostedCodec {
  static let header = "dripper-host 2"
  static let headerOfVersion1 = "dripper-host 1"

  struct Malformed: Error, CustomStringConvertible {
    let what: String
    var description: String { "not a hosted key's \(what)" }
  }

  /// The envelope around `codec`: for a schema's current version, or, with `migrate`, for an
  /// older one.
  static func codec<State: Sendable, Action: Sendable>(
    _ codec: JournalCodec<State, Action>, requests: RequestRetention
  ) -> JournalCodec<HostedState<State, Action>, HostedAction<Action>> {
    JournalCodec(
      encodeAction: { encode($0, codec.encodeAction) },
      decodeAction: { try decode($0, codec.decodeAction) },
      encodeState: { try encode($0, state: codec.encodeState, action: codec.encodeAction) },
      decodeState: {
        try decode($0, requests: requests, state: codec.decodeState, action: codec.decodeAction)
      })
  }

  /// The schema of the envelope: the feature's version, its migrations applied inside. A request
  /// recorded under an older version has its fingerprint forgotten: the action's text changed with
  /// the version, and a retry's, in the new text, must not be refused for it.
  static func schema<State: Sendable, Action: Sendable>(
    _ schema: JournalSchema<State, Action>, requests: RequestRetention
  ) -> JournalSchema<HostedState<State, Action>, HostedAction<Action>> {
    JournalSchema(version: schema.version) { text, version in
      var state = try decode(
        text, requests: requests, state: { try schema.migrateState($0, version) },
        action: { try schema.migrateAction($0, version) })
      state.requests.forgetFingerprints()
      return state
    } migrateAction: { text, version in
      let action = try decode(text) { try schema.migrateAction($0, version) }
      guard case .request(var request) = action else { return action }
      request.fingerprint = 0
      return .request(request)
    }
  }

  // MARK: - Actions

  static func encode(action text: String) -> String { "a " + text }

  static func encode<Action>(request: HostedRequest<Action>, text: String) -> String {
    "q \(hex(request.nonce)) \(hex(request.fingerprint ?? 0)) \(request.time) \(request.id.utf8.count):\(request.id) "
      + text
  }

  static func encode(fireDue date: Date) -> String { "f \(date.timeIntervalSince1970)" }

  static func encode<Action>(_ action: HostedAction<Action>, _ text: (Action) -> String) -> String {
    switch action {
    case .action(let action): return encode(action: text(action))
    case .request(var request):
      let actionText = text(request.action)
      if request.fingerprint == nil {
        var hash = FNV1a()
        hash.add(actionText.utf8)
        request.fingerprint = max(1, hash.value)
      }
      return encode(request: request, text: actionText)
    case .fireDue(let date): return encode(fireDue: date)
    }
  }

  static func decode<Action>(_ line: String, _ decode: (String) throws -> Action) throws -> HostedAction<
    Action
  > {
    let bytes = Array(line.utf8)
    guard bytes.count >= 2, bytes[1] == UInt8(ascii: " ") else { throw Malformed(what: "entry") }
    var rest = bytes[2...]
    switch bytes[0] {
    case UInt8(ascii: "a"):
      return .action(try decode(String(decoding: rest, as: UTF8.self)))
    case UInt8(ascii: "f"):
      guard let seconds = Double(String(decoding: rest, as: UTF8.self)), seconds.isFinite else {
        throw Malformed(what: "entry")
      }
      return .fireDue(Date(timeIntervalSince1970: seconds))
    case UInt8(ascii: "r"):
      guard let nonce = field(&rest, hex: true) else { throw Malformed(what: "entry") }
      let (id, text) = try idAndText(rest)
      return .request(
        HostedRequest(id: id, nonce: nonce, time: .infinity, fingerprint: 0, action: try decode(text)))
    case UInt8(ascii: "q"):
      guard let nonce = field(&rest, hex: true), let fingerprint = field(&rest, hex: true),
        let secondsEnd = rest.firstIndex(of: 32),
        let seconds = Double(String(decoding: rest[..<secondsEnd], as: UTF8.self)), !seconds.isNaN
      else { throw Malformed(what: "entry") }
      let (id, text) = try idAndText(rest[(secondsEnd + 1)...])
      return .request(
        HostedRequest(id: id, nonce: nonce, time: seconds, fingerprint: fingerprint, action: try decode(text))
      )
    default:
      throw Malformed(what: "entry")
    }
  }

  /// A field of 16 hex digits and the space after it, taken off the front of `rest`.
  private static func field(_ rest: inout ArraySlice<UInt8>, hex: Bool) -> UInt64? {
    guard rest.count > 17, rest[rest.startIndex + 16] == 32, let value = JournalLine.hex(rest.prefix(16))
    else {
      return nil
    }
    rest = rest.dropFirst(17)
    return value
  }

  /// `LENGTH:ID TEXT`: the id, of LENGTH bytes, and the text after it.
  private static func idAndText(_ rest: ArraySlice<UInt8>) throws -> (String, String) {
    guard let colon = rest.firstIndex(of: UInt8(ascii: ":")),
      let length = Int(String(decoding: rest[..<colon], as: UTF8.self)),
      length >= 0, colon + 1 + length < rest.endIndex, rest[colon + 1 + length] == 32
    else { throw Malformed(what: "entry") }
    let id = String(decoding: rest[(colon + 1)..<(colon + 1 + length)], as: UTF8.self)
    let text = String(decoding: rest[(colon + 2 + length)...], as: UTF8.self)
    return (id, text)
  }

  // MARK: - States

  static func encode<State, Action>(
    _ state: HostedState<State, Action>, state encodeState: (State) throws -> String,
    action encodeAction: (Action) -> String
  ) throws -> String {
    var lines = [header, "sequence \(state.sequence)"]
    for id in state.requests.ids {
      guard let entry = state.requests.entries[id] else { continue }
      lines.append(
        "request \(entry.sequence) \(hex(entry.nonce)) \(hex(entry.fingerprint)) \(entry.time) \(JournalLine.escape(id))"
      )
      lines.append(entry.reply?.text.map { "reply " + JournalLine.escape($0) } ?? "noreply")
    }
    for (id, reminder) in state.reminders.sorted {
      lines.append("reminder \(reminder.deadline.timeIntervalSince1970) \(JournalLine.escape(id))")
      lines.append(JournalLine.escape(encodeAction(reminder.action)))
    }
    lines.append("state")
    return lines.joined(separator: "\n") + "\n" + (try encodeState(state.value))
  }

  static func decode<State, Action>(
    _ text: String, requests retention: RequestRetention, state decodeState: (String) throws -> State,
    action decodeAction: (String) throws -> Action
  ) throws -> HostedState<State, Action> {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
    let first = lines.popFirst()
    guard first == Substring(header) || first == Substring(headerOfVersion1) else {
      throw Malformed(
        what: "snapshot (its first line is '\(first.map { String($0.prefix(40)) } ?? "")', not '\(header)': "
          + "a later Dripper wrote it?)")
    }
    let version1 = first == Substring(headerOfVersion1)
    var sequence: UInt64?
    var requests = RequestWindow(retention: retention)
    var reminders = ReminderTable<Action>()
    while let line = lines.popFirst() {
      let fields = line.split(separator: " ", maxSplits: version1 ? 3 : 5, omittingEmptySubsequences: false)
      switch fields.first {
      case "sequence":
        guard fields.count == 2, let value = UInt64(fields[1]) else { throw Malformed(what: "snapshot") }
        sequence = value
      case "request" where version1:
        guard fields.count == 4, let number = UInt64(fields[1]),
          let nonce = JournalLine.hex(Array(fields[2].utf8)[...]),
          let id = JournalLine.unescape(Array(fields[3].utf8)[...])
        else { throw Malformed(what: "snapshot") }
        requests.insert(
          id, RequestWindow.Entry(sequence: number, nonce: nonce, fingerprint: 0, time: .infinity, reply: nil)
        )
      case "request":
        guard fields.count == 6, let number = UInt64(fields[1]),
          let nonce = JournalLine.hex(Array(fields[2].utf8)[...]),
          let fingerprint = JournalLine.hex(Array(fields[3].utf8)[...]),
          let time = Double(fields[4]), !time.isNaN,
          let id = JournalLine.unescape(Array(fields[5].utf8)[...]),
          let answer = lines.popFirst()
        else { throw Malformed(what: "snapshot") }
        var reply: HostedReply?
        if answer.hasPrefix("reply ") {
          guard let text = JournalLine.unescape(Array(answer.utf8.dropFirst(6))[...]) else {
            throw Malformed(what: "snapshot")
          }
          reply = .text(text)
        } else if answer != "noreply" {
          throw Malformed(what: "snapshot")
        }
        requests.insert(
          id,
          RequestWindow.Entry(
            sequence: number, nonce: nonce, fingerprint: fingerprint, time: time, reply: reply))
      case "reminder":
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let seconds = Double(parts[1]), seconds.isFinite,
          let id = JournalLine.unescape(Array(parts[2].utf8)[...]), let actionLine = lines.popFirst(),
          let actionText = JournalLine.unescape(Array(actionLine.utf8)[...])
        else { throw Malformed(what: "snapshot") }
        reminders.set(
          id,
          PendingReminder(
            deadline: Date(timeIntervalSince1970: seconds), action: try decodeAction(actionText)))
      case "state":
        guard let sequence else { throw Malformed(what: "snapshot") }
        var state = HostedState<State, Action>(
          value: try decodeState(lines.joined(separator: "\n")), requests: retention)
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
