import Synchronization

/// The observer every Station reports to unless it is given observers of its own: bloc's
/// `Bloc.observer`, for logging or analytics across a whole program.
///
/// ```swift
/// DefaultObserver.set(
///   DripperObserver(didReduce: { transition in log("\(transition.action)") }))
/// ```
///
/// It sees states and actions as `any Sendable`. Stations created before it is set keep what
/// they had; a Station given `observers:` reports to those alone. Setting it costs nothing per
/// action to Stations that do not use it.
public enum DefaultObserver {
  /// The observer new Stations report to, or `nil`.
  public static var current: DripperObserver<any Sendable, any Sendable>? {
    defaultObserver.withLock { $0 }
  }

  /// Makes `observer` the one new Stations without observers of their own report to; `nil`
  /// removes it.
  public static func set(_ observer: DripperObserver<any Sendable, any Sendable>?) {
    defaultObserver.withLock { $0 = observer }
  }

  /// The observers a new Station of these types gets when it is given none: the default, typed
  /// for it, or none.
  @usableFromInline
  static func observers<State: Sendable, Action: Sendable>(
    for state: State.Type, _ action: Action.Type
  ) -> [DripperObserver<State, Action>] {
    guard let erased = current else { return [] }
    var typed = DripperObserver<State, Action>()
    if let willReduce = erased.willReduce {
      typed.willReduce = { action, state in willReduce(action, state) }
    }
    if let didReduce = erased.didReduce {
      typed.didReduce = { transition in
        didReduce(Transition(action: transition.action, old: transition.old, new: transition.new))
      }
    }
    if let reduced = erased.reduced {
      typed.reduced = { action, state in reduced(action, state) }
    }
    typed.effect = erased.effect
    typed.diagnostic = erased.diagnostic
    typed.end = erased.end
    return [typed]
  }
}

private let defaultObserver = Lock<DripperObserver<any Sendable, any Sendable>?>(nil)
