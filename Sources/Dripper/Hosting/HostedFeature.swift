#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// What a key's Station is poured: the feature's actions, requests, and the reminders due.
@usableFromInline
enum HostedAction<Action: Sendable>: Sendable {
  /// An action of the feature: poured by a caller, or by the feature's effects.
  case action(Action)
  /// An action applied once per request id (see ``StationHost/pour(_:to:id:effectsIn:)``). Boxed: a
  /// request carries much more than an action, and the enum stays the size of an action, which
  /// every pour copies into its Station's mailbox.
  indirect case request(HostedRequest<Action>)
  /// Pours the actions of the reminders due at the date, in the order of their deadlines.
  case fireDue(Date)
}

/// A request: an action applied once per id, and who waits for its answer.
@usableFromInline
struct HostedRequest<Action: Sendable>: Sendable {
  @usableFromInline var id: String
  /// Who made it: a retry made elsewhere has another (see ``StationHost/nextNonce``).
  @usableFromInline var nonce: UInt64
  /// When it was made, in seconds since 1970 on the host's wall time: what the request window's
  /// age is measured from.
  @usableFromInline var time: Double
  /// A hash of the action, told apart from a retry's with another action; `nil` until the
  /// reduction computes it, 0 for a request recorded without one.
  @usableFromInline var fingerprint: UInt64?
  @usableFromInline var action: Action
  /// Who waits for the answer; `nil` in a replay.
  @usableFromInline var ticket: RequestTicket?

  @usableFromInline
  init(
    id: String, nonce: UInt64, time: Double, fingerprint: UInt64? = nil, action: Action,
    ticket: RequestTicket? = nil
  ) {
    self.id = id
    self.nonce = nonce
    self.time = time
    self.fingerprint = fingerprint
    self.action = action
    self.ticket = ticket
  }
}

/// What the reduction of a request tells the caller waiting for it, taken from the reduction
/// itself: a request that was applied always gets its receipt.
///
/// The caller waits on ``outcome``; the action holds the ticket. A ticket released unanswered (its
/// Station ended with the request still in its mailbox) answers that it was dropped, so that no
/// caller waits forever.
@usableFromInline
final class RequestTicket: Sendable {
  @usableFromInline
  enum Outcome: Sendable {
    /// Applied now or before: the receipt, the reply, and the entry whose durability acknowledges
    /// it (the request's own, or its retry's, which comes after the first) in the key's log, if it
    /// is kept in a folder.
    case applied(PourReceipt, reply: HostedReply?, entry: UInt64, log: KeyLog?)
    /// The id was applied before with another action.
    case mismatch
    /// The key's storage failed: the request was not kept.
    case failed(JournalError)
    /// The key's Station ended before it reduced the request.
    case dropped
  }

  @usableFromInline let outcome = Promise<Outcome>()
  /// What the effects of the request's reduction run inside, if the caller gave a scope.
  @usableFromInline let scope: RequestScope?

  @usableFromInline
  init(scope: RequestScope? = nil) { self.scope = scope }

  deinit { outcome.fulfill(.dropped) }

  @usableFromInline
  func answer(_ outcome: Outcome) { self.outcome.fulfill(outcome) }
}

/// How a key kept in a folder records what it reduces (see ``KeyLog``).
@usableFromInline
struct HostedRecorder<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let log: KeyLog
  /// The feature's action as text.
  let encode: @Sendable (Action) -> String
  /// Writes a snapshot of the state after entry `sequence`.
  let snapshot: @Sendable (HostedState<State, Action>, UInt64) -> SnapshotOutcome
  let snapshotEvery: UInt64
  /// The digest of the state kept in every `digestEvery`-th entry, checked on replay.
  let digest: StateHash<HostedState<State, Action>>?
  let digestEvery: UInt64
  /// The most bytes an entry's action may take, escaped.
  let actionBytes: Int
  /// Told the key's earliest reminder as it changes, before the entry is appended: a key kept in a
  /// store makes its reminder hint earlier (see ``StoreSink``).
  var hint: (@Sendable (Date?) -> Void)? = nil
}

/// The feature a host runs for each key: its feature, with the request window, the reminders and
/// the replies; for a key kept in a folder, the recording of each action, and effects held until
/// the entry of the action that started them is durable.
///
/// Inlinable, as a Station is: a host makes its keys' Stations where the feature's types are
/// known, so that each reduction runs as code specialized for them.
@usableFromInline
struct HostedFeature<Base: Dripper>: Dripper {
  @usableFromInline typealias State = HostedState<Base.State, Base.Action>
  @usableFromInline typealias Action = HostedAction<Base.Action>
  @usableFromInline typealias Body = Never

  @usableFromInline let base: Base
  /// Told the key's earliest reminder whenever its reminders change, as the reduction runs; `nil`
  /// in a replay, whose reminders the host learns once the key is live.
  @usableFromInline let remindersChanged: (@Sendable (Date?) -> Void)?
  /// Told how many reminders the key poured as they fell due.
  @usableFromInline let remindersFired: (@Sendable (Int) -> Void)?
  /// Where a key kept in a folder records; `nil` in memory, and in a replay.
  @usableFromInline let recorder: HostedRecorder<Base.State, Base.Action>?
  /// A request's fingerprint in memory, where no text of it is made.
  @usableFromInline let fingerprint: @Sendable (Base.Action) -> UInt64

  @usableFromInline
  init(
    base: Base, remindersChanged: (@Sendable (Date?) -> Void)?, remindersFired: (@Sendable (Int) -> Void)?,
    recorder: HostedRecorder<Base.State, Base.Action>? = nil,
    fingerprint: @escaping @Sendable (Base.Action) -> UInt64 = ActionFingerprint.function(
      for: Base.Action.self)
  ) {
    self.base = base
    self.remindersChanged = remindersChanged
    self.remindersFired = remindersFired
    self.recorder = recorder
    self.fingerprint = fingerprint
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
    var audit: _Audit<State, Action>?
    if let baseAudit = built.audit {
      audit = { (state: inout State, context: inout _AuditContext) -> Effect<Action> in
        baseAudit(&state.value, &context).map { Action.action($0) }
      }
    }
    let hosting = Hosting(
      base: reduceBase, remindersChanged: remindersChanged, remindersFired: remindersFired,
      fingerprint: fingerprint)
    if let recorder {
      return _Reduction(
        reduce: { state, action in hosting.recording(action, in: &state, to: recorder) }, audit: audit)
    }
    return _Reduction(
      reduce: { state, action in
        switch action {
        case .action(let action):
          // A key in memory, the common pour: nothing but the count around the feature.
          state.sequence += 1
          let effect = reduceBase(&state.value, action)
          return effect.isNone ? .none : hosting.embedded(effect, in: &state).effect
        case .request(let request):
          let (effect, answer) = hosting.reduce(action, in: &state)
          if let answer { request.ticket?.answer(answer) }
          return effect
        case .fireDue:
          return hosting.reduce(action, in: &state).effect
        }
      },
      audit: audit)
  }
}

/// What a host adds to its feature's reduction: the count, requests, reminders, replies.
@usableFromInline
struct Hosting<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline typealias Hosted = HostedState<State, Action>
  @usableFromInline let base: @Sendable (inout State, Action) -> Effect<Action>
  @usableFromInline let remindersChanged: (@Sendable (Date?) -> Void)?
  @usableFromInline let remindersFired: (@Sendable (Int) -> Void)?
  @usableFromInline let fingerprint: @Sendable (Action) -> UInt64

  @usableFromInline
  init(
    base: @escaping @Sendable (inout State, Action) -> Effect<Action>,
    remindersChanged: (@Sendable (Date?) -> Void)?, remindersFired: (@Sendable (Int) -> Void)?,
    fingerprint: @escaping @Sendable (Action) -> UInt64
  ) {
    self.base = base
    self.remindersChanged = remindersChanged
    self.remindersFired = remindersFired
    self.fingerprint = fingerprint
  }

  /// Reduces a hosted action; the effect, and the answer to give the request's ticket.
  @usableFromInline
  func reduce(_ action: HostedAction<Action>, in state: inout Hosted) -> (
    effect: Effect<HostedAction<Action>>, answer: RequestTicket.Outcome?
  ) {
    state.sequence += 1
    switch action {
    case .action(let action):
      return (run(action, in: &state).effect, nil)
    case .request(let request):
      let fingerprint = request.fingerprint ?? self.fingerprint(request.action)
      if let entry = state.requests.entry(request.id, at: request.time) {
        guard entry.fingerprint == 0 || fingerprint == 0 || entry.fingerprint == fingerprint else {
          return (.none, .mismatch)
        }
        let receipt = PourReceipt(sequence: entry.sequence, duplicate: entry.nonce != request.nonce)
        return (.none, .applied(receipt, reply: entry.reply, entry: state.sequence, log: nil))
      }
      let sequence = state.sequence
      var (effect, reply) = run(request.action, in: &state)
      if let scope = request.ticket?.scope { effect = effect.scoped(in: scope) }
      state.requests.insert(
        request.id,
        RequestWindow.Entry(
          sequence: sequence, nonce: request.nonce, fingerprint: fingerprint, time: request.time,
          reply: reply.map(HostedReply.value)))
      let receipt = PourReceipt(sequence: sequence, duplicate: false)
      return (effect, .applied(receipt, reply: reply.map(HostedReply.value), entry: sequence, log: nil))
    case .fireDue(let now):
      let due = state.reminders.takeDue(at: now)
      var effects: [Effect<HostedAction<Action>>] = []
      for (_, reminder) in due { effects.append(run(reminder.action, in: &state).effect) }
      // Told even when nothing was due: a key woken by an early hint says what it waits for next.
      remindersChanged?(state.reminders.earliest)
      remindersFired?(due.count)
      return (.merge(effects), nil)
    }
  }

  /// Reduces a feature's action, taking the reminders its effect sets or cancels into the state;
  /// the effect, and the reply it gives.
  @inlinable
  func run(_ action: Action, in state: inout Hosted) -> (
    effect: Effect<HostedAction<Action>>, reply: (any Sendable)?
  ) {
    let effect = base(&state.value, action)
    if effect.isNone { return (.none, nil) }
    return embedded(effect, in: &state)
  }

  /// The feature's effect as the key's, what it asks of the host taken out.
  @usableFromInline
  func embedded(_ effect: Effect<Action>, in state: inout Hosted) -> (
    effect: Effect<HostedAction<Action>>, reply: (any Sendable)?
  ) {
    var effect = effect
    var reply: (any Sendable)?
    if effect.asksTheHost {
      var taken: [HostedEffect<Action>] = []
      effect = effect.takingHostedEffects(into: &taken)
      var remindersChanged = false
      for request in taken {
        switch request {
        case .remind(let id, let deadline, let action):
          state.reminders.set(id, PendingReminder(deadline: deadline, action: action))
          remindersChanged = true
        case .cancelReminder(let id):
          state.reminders.cancel(id)
          remindersChanged = true
        case .reply(let value):
          reply = value
        }
      }
      if remindersChanged { self.remindersChanged?(state.reminders.earliest) }
    }
    return (effect.map { .action($0) }, reply)
  }

  /// Reduces and records an action of a key kept in a folder: refused once its storage failed;
  /// its entry appended; the request's ticket answered; effects held until the entry is synced.
  @usableFromInline
  func recording(
    _ action: HostedAction<Action>, in state: inout Hosted, to recorder: HostedRecorder<State, Action>
  ) -> Effect<HostedAction<Action>> {
    let log = recorder.log
    let pour = ReductionContext.currentPour
    var action = action
    let ticket: RequestTicket?
    let line: String
    switch action {
    case .action(let feature):
      ticket = nil
      line = HostedCodec.encode(action: recorder.encode(feature))
    case .request(var request):
      ticket = request.ticket
      let text = recorder.encode(request.action)
      var hash = FNV1a()
      hash.add(text.utf8)
      request.fingerprint = max(1, hash.value)
      line = HostedCodec.encode(request: request, text: text)
      action = .request(request)
    case .fireDue(let date):
      ticket = nil
      line = HostedCodec.encode(fireDue: date)
    }
    if log.hasFailed.load(ordering: .relaxed) {
      _ = log.append(sequence: state.sequence + 1, text: line, stateHash: nil, pour: pour)
      ticket?.answer(.failed(log.failure(of: pour) ?? JournalError("the key's storage failed")))
      return .none
    }
    if JournalLine.escapedLength(of: line) > recorder.actionBytes {
      ticket?.answer(.failed(JournalError("the request's journal entry would be longer than a line holds")))
      return .report(
        Diagnostic(
          .other,
          "refused an action whose journal entry would be longer than the \(recorder.actionBytes) bytes a line holds: "
            + "it was not reduced, and nothing was recorded"))
    }
    let (effect, answer) = reduce(action, in: &state)
    let sequence = state.sequence
    let digest =
      recorder.digest.flatMap { digest in sequence % recorder.digestEvery == 0 ? digest(state) : nil }
    guard log.append(sequence: sequence, text: line, stateHash: digest, pour: pour) else {
      ticket?.answer(.failed(log.failure(of: pour) ?? JournalError("the key's storage failed")))
      return .none
    }
    if sequence % recorder.snapshotEvery == 0 {
      let copy = state
      log.snapshot { recorder.snapshot(copy, sequence) }
    }
    if let ticket, let answer {
      if case .applied(let receipt, let reply, let entry, _) = answer {
        ticket.answer(.applied(receipt, reply: reply, entry: entry, log: log))
      } else {
        ticket.answer(answer)
      }
    }
    return effect.isNone ? effect : effect.held(by: log, through: sequence)
  }
}

extension Effect {
  /// This effect with each `run` held until entry `sequence` of `log` is synced: it does not run
  /// at all if the entry is lost.
  func held(by log: KeyLog, through sequence: UInt64) -> Self {
    rebuilt(
      sending: { $0 },
      running: { run in run.held { await log.synced(through: sequence) == nil } })
  }
}

/// A request's fingerprint in memory: the action's hash if it is `Hashable` (the process's own:
/// an in-memory host keeps nothing across processes), else a hash of its text as tests show it.
@usableFromInline
enum ActionFingerprint {
  /// The fingerprint of actions of `type`. Whether they are `Hashable` is looked up here, once a
  /// key's feature: a cast to `any Hashable` at each request cost a conformance lookup, about a
  /// twentieth of an in-memory request's time.
  @usableFromInline
  static func function<Action: Sendable>(for type: Action.Type) -> @Sendable (Action) -> UInt64 {
    if let hashable = type as? any (Hashable & Sendable).Type { return hashing(as: hashable) }
    return { action in
      var hash = FNV1a()
      for line in Dump.lines(action) { hash.add(line.utf8) }
      return max(1, hash.value)
    }
  }

  /// Hashes an action known to be of type `H`: a cast to its own type, not a conformance lookup.
  private static func hashing<H: Hashable & Sendable, Action: Sendable>(as _: H.Type)
    -> @Sendable (Action) -> UInt64
  {
    { action in max(1, UInt64(bitPattern: Int64((action as! H).hashValue))) }
  }
}
