#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

extension Effect {
  /// Asks the ``StationHost`` that runs this key to pour `action` into it at `deadline`: time
  /// that survives passivation, restarts and crashes, as Orleans' reminders do.
  ///
  /// ```swift
  /// case .checkedOut(let at):
  ///   state.status = .awaitingPayment
  ///   return .remind(.paymentTimedOut, at: at.addingTimeInterval(15 * 60), id: "payment")
  /// case .paid:
  ///   state.status = .paid
  ///   return .cancelReminder(id: "payment")
  /// ```
  ///
  /// The reminder is part of the key's state as the reduction that returns it ends: recorded in
  /// its journal with that reduction, so a crash loses it only if it loses the reduction. At its
  /// deadline the host pours the action, activating the key if it was passivated; one that fell
  /// due while the process was down is poured once, when the host starts. A reminder replaces
  /// the key's reminder of the same `id`; ids are the key's, not a child's: a child in a list
  /// names its reminders with its own id.
  ///
  /// The deadline is a wall-clock `Date`, which survives a restart. Take it from the action, as
  /// above, rather than from a clock read in the reducer: a replay of the journal reduces the action
  /// again and must set the same reminder.
  ///
  /// Outside a ``StationHost`` there is nobody to remind: the effect is reported as a
  /// ``Diagnostic`` (a failure under a `TestStation`).
  public static func remind(_ action: Action, at deadline: Date, id: String) -> Self {
    Self(.host(.remind(id: id, deadline: deadline, action: action)))
  }

  /// Cancels the key's reminder `id` (see ``remind(_:at:id:)``): it never fires, even if its
  /// deadline has passed and the host has not poured it yet. Cancelling an id with no reminder
  /// does nothing.
  public static func cancelReminder(id: String) -> Self {
    Self(.host(.cancelReminder(id: id)))
  }
}

/// What a key's reduction asks of the ``StationHost`` that runs it: a reminder set or cancelled,
/// a reply to the request it reduces.
@usableFromInline
package enum HostedEffect<Action: Sendable>: Sendable {
  case remind(id: String, deadline: Date, action: Action)
  case cancelReminder(id: String)
  case reply(any Sendable)

  func map<T: Sendable>(_ transform: (Action) -> T) -> HostedEffect<T> {
    switch self {
    case .remind(let id, let deadline, let action):
      .remind(id: id, deadline: deadline, action: transform(action))
    case .cancelReminder(let id): .cancelReminder(id: id)
    case .reply(let reply): .reply(reply)
    }
  }

  /// What a Station outside a host says of it.
  package var outsideAHost: Diagnostic {
    let what =
      switch self {
      case .remind(let id, _, let action): "a reminder '\(id)' of \(Dump.line(action)): reminders need"
      case .cancelReminder(let id): "the cancellation of reminder '\(id)': reminders need"
      case .reply(let reply): "a reply \(Dump.line(reply)): replies need"
      }
    return Diagnostic(.other, "ignored \(what) a StationHost to keep them")
  }
}

extension Effect {
  /// This effect without what it asks of a host, which goes to `taken` in the order it appears;
  /// the effect itself when it asks nothing, which costs a walk of it and no allocation.
  package func takingHostedEffects(into taken: inout [HostedEffect<Action>]) -> Self {
    guard asksTheHost else { return self }
    switch operation {
    case .host(let effect):
      taken.append(effect)
      return .none
    case .merge(let effects): return .merge(effects.map { $0.takingHostedEffects(into: &taken) })
    case .concatenate(let effects): return .concatenate(effects.map { $0.takingHostedEffects(into: &taken) })
    case .cancellable(let admission, let effect):
      return Self(.cancellable(admission, effect.takingHostedEffects(into: &taken)))
    case .namespaced(let component, let effect):
      return effect.takingHostedEffects(into: &taken).namespaced(component)
    case .delayed(let delay, let effect):
      return Self(.delayed(delay, effect.takingHostedEffects(into: &taken)))
    case .throttled(let throttle, let effect):
      return Self(.throttled(throttle, effect.takingHostedEffects(into: &taken)))
    case .none, .send, .run, .cancel, .announce: return self
    }
  }

  /// Whether a reminder or a reply is anywhere in the effect.
  package var asksTheHost: Bool {
    switch operation {
    case .host: true
    case .merge(let effects), .concatenate(let effects): effects.contains { $0.asksTheHost }
    case .cancellable(_, let effect), .namespaced(_, let effect), .delayed(_, let effect),
      .throttled(_, let effect):
      effect.asksTheHost
    case .none, .send, .run, .cancel, .announce: false
    }
  }
}
