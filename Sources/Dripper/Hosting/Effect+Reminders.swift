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
    Self(.remind(.set(id: id, deadline: deadline, action: action)))
  }

  /// Cancels the key's reminder `id` (see ``remind(_:at:id:)``): it never fires, even if its
  /// deadline has passed and the host has not poured it yet. Cancelling an id with no reminder
  /// does nothing.
  public static func cancelReminder(id: String) -> Self {
    Self(.remind(.cancel(id: id)))
  }
}

/// A reminder an effect sets or cancels.
@usableFromInline
enum EffectReminder<Action: Sendable>: Sendable {
  case set(id: String, deadline: Date, action: Action)
  case cancel(id: String)

  func map<T: Sendable>(_ transform: (Action) -> T) -> EffectReminder<T> {
    switch self {
    case .set(let id, let deadline, let action): .set(id: id, deadline: deadline, action: transform(action))
    case .cancel(let id): .cancel(id: id)
    }
  }

  /// What a Station outside a host says of it.
  var outsideAHost: Diagnostic {
    let what =
      switch self {
      case .set(let id, _, let action): "a reminder '\(id)' of \(Dump.line(action))"
      case .cancel(let id): "the cancellation of reminder '\(id)'"
      }
    return Diagnostic(.other, "ignored \(what): reminders need a StationHost to keep them")
  }
}

extension Effect {
  /// This effect without its reminders, which go to `reminders` in the order they appear; the
  /// effect itself when it has none, which costs a walk of it and no allocation.
  func takingReminders(into reminders: inout [EffectReminder<Action>]) -> Self {
    guard containsReminder else { return self }
    switch operation {
    case .remind(let reminder):
      reminders.append(reminder)
      return .none
    case .merge(let effects): return .merge(effects.map { $0.takingReminders(into: &reminders) })
    case .concatenate(let effects): return .concatenate(effects.map { $0.takingReminders(into: &reminders) })
    case .cancellable(let admission, let effect):
      return Self(.cancellable(admission, effect.takingReminders(into: &reminders)))
    case .namespaced(let component, let effect):
      return effect.takingReminders(into: &reminders).namespaced(component)
    case .delayed(let delay, let effect):
      return Self(.delayed(delay, effect.takingReminders(into: &reminders)))
    case .throttled(let throttle, let effect):
      return Self(.throttled(throttle, effect.takingReminders(into: &reminders)))
    case .none, .send, .run, .cancel, .announce: return self
    }
  }

  /// Whether a reminder is anywhere in the effect.
  var containsReminder: Bool {
    switch operation {
    case .remind: true
    case .merge(let effects), .concatenate(let effects): effects.contains { $0.containsReminder }
    case .cancellable(_, let effect), .namespaced(_, let effect), .delayed(_, let effect),
      .throttled(_, let effect):
      effect.containsReminder
    case .none, .send, .run, .cancel, .announce: false
    }
  }
}
