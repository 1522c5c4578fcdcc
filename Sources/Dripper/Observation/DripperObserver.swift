/// Told what happens in a Station, or in part of a feature: actions, state transitions, effects,
/// diagnostics, and the Station's end.
///
/// Give observers to a Station to watch all of it, or attach one to part of a feature with
/// ``Dripper/observe(_:)``:
///
/// ```swift
/// let station = Station(
///   initialState: Counter.State(),
///   observers: [
///     DripperObserver(didReduce: { transition in
///       if transition.old != transition.new { print(transition.new.count) }
///     })
///   ]
/// ) {
///   Counter()
/// }
/// ```
///
/// Observers are called synchronously: action and transition callbacks on the Station's actor,
/// in the order of the reductions, and effect callbacks from the effects' tasks. Keep them quick.
/// Only what an observer asks for is done: the old state is kept for ``didReduce`` alone, and
/// effects are watched only for an observer with ``effect``. Keeping the old state while the
/// reduction changes the new one costs a copy of what the reduction changes (a large array, whole)
/// at every action; an observer that needs only the new state uses ``reduced``, which costs none.
public struct DripperObserver<State: Sendable, Action: Sendable>: Sendable {
  /// Called before each reduction, with the action and the state it will change.
  public var willReduce: (@Sendable (_ action: Action, _ state: State) -> Void)?
  /// Called after each reduction, with the action and the state before and after. The state before
  /// is kept while the reduction runs: a copy of what it changes, at every action.
  public var didReduce: (@Sendable (_ transition: Transition<State, Action>) -> Void)?
  /// Called after each reduction, with the action and the new state: no copy is made for it.
  public var reduced: (@Sendable (_ action: Action, _ state: State) -> Void)?
  /// Called when an effect starts, finishes, is cancelled, or fails.
  public var effect: (@Sendable (_ event: EffectEvent) -> Void)?
  /// Called with each diagnostic the Station reports. (Station observers only.)
  public var diagnostic: (@Sendable (_ diagnostic: Diagnostic) -> Void)?
  /// Called once, when the Station is released. (Station observers only.)
  public var end: (@Sendable () -> Void)?

  /// Creates an observer of each reduction's action and new state, which copies nothing, and of
  /// whatever else it needs.
  ///
  /// ```swift
  /// DripperObserver<Todos.State, Todos.Action>(reduced: { _, state in render(state) })
  /// ```
  public init(
    reduced: @escaping @Sendable (_ action: Action, _ state: State) -> Void,
    willReduce: (@Sendable (_ action: Action, _ state: State) -> Void)? = nil,
    effect: (@Sendable (_ event: EffectEvent) -> Void)? = nil,
    diagnostic: (@Sendable (_ diagnostic: Diagnostic) -> Void)? = nil,
    end: (@Sendable () -> Void)? = nil
  ) {
    self.init(willReduce: willReduce, effect: effect, diagnostic: diagnostic, end: end)
    self.reduced = reduced
  }

  /// Creates an observer from the callbacks it needs.
  public init(
    willReduce: (@Sendable (_ action: Action, _ state: State) -> Void)? = nil,
    didReduce: (@Sendable (_ transition: Transition<State, Action>) -> Void)? = nil,
    effect: (@Sendable (_ event: EffectEvent) -> Void)? = nil,
    diagnostic: (@Sendable (_ diagnostic: Diagnostic) -> Void)? = nil,
    end: (@Sendable () -> Void)? = nil
  ) {
    self.willReduce = willReduce
    self.didReduce = didReduce
    self.effect = effect
    self.diagnostic = diagnostic
    self.end = end
  }
}

/// One reduction: the action, and the state before and after it.
public struct Transition<State: Sendable, Action: Sendable>: Sendable {
  /// The action reduced.
  public let action: Action
  /// The state before the reduction.
  public let old: State
  /// The state after the reduction.
  public let new: State

  /// Creates a transition.
  public init(action: Action, old: State, new: State) {
    self.action = action
    self.old = old
    self.new = new
  }
}

/// Something that happened to an effect.
public struct EffectEvent: Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable {
    /// The effect's work started.
    case started
    /// The work returned.
    case finished
    /// The work was cancelled (it threw `CancellationError`, or returned after being cancelled).
    case cancelled
    /// The work threw an error. The effect's `catch` handler, if any, runs next.
    case failed(any Error)
  }

  /// What happened.
  public let kind: Kind
  /// Where the effect was written, as `File.swift:line`.
  public let origin: String

  /// Creates an event.
  public init(_ kind: Kind, origin: String) {
    self.kind = kind
    self.origin = origin
  }

  /// `started`, `finished`, `cancelled` or `failed: error`, then where.
  public var description: String {
    switch kind {
    case .started: "effect started (\(origin))"
    case .finished: "effect finished (\(origin))"
    case .cancelled: "effect cancelled (\(origin))"
    case .failed(let error): "effect failed: \(error) (\(origin))"
    }
  }
}

extension DripperObserver {
  /// One observer that calls each of `observers`, with only the callbacks some of them have.
  @usableFromInline
  static func combining(_ observers: [DripperObserver]) -> DripperObserver {
    if observers.count == 1 { return observers[0] }
    var combined = DripperObserver()
    let willReduce = observers.compactMap(\.willReduce)
    if !willReduce.isEmpty {
      combined.willReduce = { action, state in
        for callback in willReduce { callback(action, state) }
      }
    }
    let didReduce = observers.compactMap(\.didReduce)
    if !didReduce.isEmpty {
      combined.didReduce = { transition in
        for callback in didReduce { callback(transition) }
      }
    }
    let reduced = observers.compactMap(\.reduced)
    if !reduced.isEmpty {
      combined.reduced = { action, state in
        for callback in reduced { callback(action, state) }
      }
    }
    let effect = observers.compactMap(\.effect)
    if !effect.isEmpty {
      combined.effect = { event in
        for callback in effect { callback(event) }
      }
    }
    let diagnostic = observers.compactMap(\.diagnostic)
    if !diagnostic.isEmpty {
      combined.diagnostic = { report in
        for callback in diagnostic { callback(report) }
      }
    }
    let end = observers.compactMap(\.end)
    if !end.isEmpty {
      combined.end = {
        for callback in end { callback() }
      }
    }
    return combined
  }

  /// Whether the observer watches reductions or effects, which a dripper must be wrapped for.
  @usableFromInline
  var watchesDripper: Bool { willReduce != nil || didReduce != nil || reduced != nil || effect != nil }
}
