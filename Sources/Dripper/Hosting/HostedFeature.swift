#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// What a ``StationHost`` says of a pour made with a request id: the number of the action in the
/// key's history, and whether it was a retry of a request the key had already applied.
///
/// It is `Codable`, to be the answer a service sends back, over any transport.
public struct PourReceipt: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The action's number in the key's history: 1 for the first action the key ever reduced, one
  /// more for each after it, across activations and restarts (its journal's sequence number, for a
  /// key kept in a folder).
  public var sequence: UInt64
  /// Whether the request id had been applied before: this pour was not reduced again, and
  /// `sequence` is the first one's.
  public var duplicate: Bool

  /// A receipt.
  public init(sequence: UInt64, duplicate: Bool) {
    self.sequence = sequence
    self.duplicate = duplicate
  }

  /// `#12`, or `#12 (a retry)`.
  public var description: String { "#\(sequence)" + (duplicate ? " (a retry)" : "") }
}

/// A key's state as its host keeps it: the feature's state, the number of actions it has reduced,
/// the request ids it has applied lately, and its reminders. All of it is recorded and recovered,
/// so that a retry after a crash is still known, and a reminder still fires.
@usableFromInline
struct HostedState<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline var value: State
  /// The actions the key has reduced: its journal's sequence number.
  @usableFromInline var sequence: UInt64 = 0
  @usableFromInline var requests: RequestWindow
  @usableFromInline var reminders: [String: PendingReminder<Action>] = [:]

  @usableFromInline
  init(value: State, requestWindow: Int) {
    self.value = value
    self.requests = RequestWindow(capacity: requestWindow)
  }

  /// The earliest deadline of the key's reminders.
  @usableFromInline
  var earliestReminder: Date? { reminders.values.lazy.map(\.deadline).min() }
}

/// A reminder a key has set, waiting for its deadline.
@usableFromInline
struct PendingReminder<Action: Sendable>: Sendable {
  @usableFromInline var deadline: Date
  @usableFromInline var action: Action
}

/// The request ids a key has applied lately, each with its receipt: the last `capacity` of them,
/// the oldest forgotten first.
@usableFromInline
struct RequestWindow: Sendable, Equatable {
  @usableFromInline
  struct Entry: Sendable, Equatable {
    @usableFromInline var sequence: UInt64
    /// Who made the first request: a retry has another, and is told it was a duplicate.
    @usableFromInline var nonce: UInt64

    @usableFromInline
    init(sequence: UInt64, nonce: UInt64) {
      self.sequence = sequence
      self.nonce = nonce
    }
  }

  let capacity: Int
  private(set) var entries: [String: Entry] = [:]
  /// The ids, oldest first from `start`, in a ring of `capacity`.
  private(set) var order: [String] = []
  private var start = 0

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  /// The entry of `id`, if it is in the window.
  @usableFromInline
  subscript(id: String) -> Entry? { entries[id] }

  /// Adds `id`, forgetting the oldest id if the window is full.
  @usableFromInline
  mutating func insert(_ id: String, _ entry: Entry) {
    entries[id] = entry
    if order.count < capacity {
      order.append(id)
    } else {
      entries[order[start]] = nil
      order[start] = id
      start = (start + 1) % capacity
    }
  }

  /// The ids, oldest first.
  var ids: [String] { Array(order[start...] + order[..<start]) }
}

/// What a key's Station is poured: the feature's actions, requests, and the reminders due.
@usableFromInline
enum HostedAction<Action: Sendable>: Sendable {
  /// An action of the feature: poured by a caller, or by the feature's effects.
  case action(Action)
  /// An action applied once per request id (see ``StationHost/pour(_:to:id:)``).
  case request(id: String, nonce: UInt64, Action)
  /// Pours the actions of the reminders due at the date, in the order of their deadlines.
  case fireDue(Date)
}

/// The feature a host runs for each key: its feature, with the request window and the reminders.
///
/// Inlinable, as a Station is: a host makes its keys' Stations where the feature's types are
/// known, so that each reduction runs as code specialized for them.
@usableFromInline
struct HostedFeature<Base: Dripper>: Dripper {
  @usableFromInline typealias State = HostedState<Base.State, Base.Action>
  @usableFromInline typealias Action = HostedAction<Base.Action>
  @usableFromInline typealias Body = Never

  @usableFromInline let base: Base
  /// Told the key's earliest reminder whenever its reminders change, as the reduction runs.
  @usableFromInline let remindersChanged: (@Sendable (Date?) -> Void)?

  @usableFromInline
  init(base: Base, remindersChanged: (@Sendable (Date?) -> Void)?) {
    self.base = base
    self.remindersChanged = remindersChanged
  }

  @inlinable
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    _build().reduce(&state, action)
  }

  /// The base built once, its reduction wrapped; the base's check of its children runs on the
  /// feature's part of the state.
  @inlinable
  func _build() -> _Reduction<State, Action> {
    let built = base._build()
    let reduceBase = built.reduce
    let remindersChanged = remindersChanged
    var audit: _Audit<State, Action>?
    if let baseAudit = built.audit {
      audit = { (state: inout State, context: inout _AuditContext) -> Effect<Action> in
        baseAudit(&state.value, &context).map { Action.action($0) }
      }
    }
    return _Reduction(
      reduce: { state, action in
        switch action {
        case .action(let action):
          state.sequence += 1
          return Self.run(action, in: &state, base: reduceBase, remindersChanged: remindersChanged)
        case .request, .fireDue:
          return Self.reduceHosted(&state, action, base: reduceBase, remindersChanged: remindersChanged)
        }
      },
      audit: audit)
  }

  /// A request or the reminders due: what the host adds to the feature.
  @inlinable
  static func reduceHosted(
    _ state: inout State, _ action: Action, base: (inout Base.State, Base.Action) -> Effect<Base.Action>,
    remindersChanged: (@Sendable (Date?) -> Void)?
  ) -> Effect<Action> {
    state.sequence += 1
    switch action {
    case .action(let action):
      return run(action, in: &state, base: base, remindersChanged: remindersChanged)
    case .request(let id, let nonce, let action):
      guard state.requests[id] == nil else { return .none }
      state.requests.insert(id, RequestWindow.Entry(sequence: state.sequence, nonce: nonce))
      return run(action, in: &state, base: base, remindersChanged: remindersChanged)
    case .fireDue(let now):
      let due = state.reminders.filter { $0.value.deadline <= now }.sorted {
        ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
      }
      guard !due.isEmpty else { return .none }
      for (id, _) in due { state.reminders[id] = nil }
      var effects: [Effect<Action>] = []
      for (_, reminder) in due {
        effects.append(run(reminder.action, in: &state, base: base, remindersChanged: remindersChanged))
      }
      remindersChanged?(state.earliestReminder)
      return .merge(effects)
    }
  }

  /// Reduces a feature's action, taking the reminders its effect sets or cancels into the state.
  @inlinable
  static func run(
    _ action: Base.Action, in state: inout State,
    base: (inout Base.State, Base.Action) -> Effect<Base.Action>,
    remindersChanged: (@Sendable (Date?) -> Void)?
  ) -> Effect<Action> {
    let effect = base(&state.value, action)
    if effect.isNone { return .none }
    return embedded(effect, in: &state, remindersChanged: remindersChanged)
  }

  /// The feature's effect as the key's, its reminders taken into the state.
  @usableFromInline
  static func embedded(
    _ effect: Effect<Base.Action>, in state: inout State, remindersChanged: (@Sendable (Date?) -> Void)?
  ) -> Effect<Action> {
    var effect = effect
    if effect.containsReminder {
      var reminders: [EffectReminder<Base.Action>] = []
      effect = effect.takingReminders(into: &reminders)
      for reminder in reminders {
        switch reminder {
        case .set(let id, let deadline, let action):
          state.reminders[id] = PendingReminder(deadline: deadline, action: action)
        case .cancel(let id):
          state.reminders[id] = nil
        }
      }
      remindersChanged?(state.earliestReminder)
    }
    return effect.map { .action($0) }
  }
}
