extension Dripper {
  /// Tells `observer` of each action, transition and effect of this dripper.
  ///
  /// ```swift
  /// Scope(state: \.search, action: .search) {
  ///   Search().observe(DripperObserver(effect: { print($0) }))
  /// }
  /// ```
  ///
  /// To watch a whole Station, including its diagnostics and its end, pass observers to
  /// ``Station/init(initialState:observers:dripper:withDependencies:)`` instead.
  public func observe(_ observer: DripperObserver<State, Action>) -> some Dripper<State, Action> {
    _ObserveModifier(base: self, observer: observer)
  }
}

/// A dripper that tells an observer what another does: see ``Dripper/observe(_:)``.
@usableFromInline
struct _ObserveModifier<Base: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let base: Base
  @usableFromInline let observer: DripperObserver<Base.State, Base.Action>

  @usableFromInline
  init(base: Base, observer: DripperObserver<Base.State, Base.Action>) {
    self.base = base
    self.observer = observer
  }

  /// Reduces with the base dripper, telling the observer.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    observer.willReduce?(action, state)
    let effect: Effect<Base.Action>
    if let didReduce = observer.didReduce {
      let old = state
      effect = base.reduce(into: &state, action: action)
      didReduce(Transition(action: action, old: old, new: state))
    } else {
      effect = base.reduce(into: &state, action: action)
    }
    observer.reduced?(action, state)
    guard let sink = observer.effect else { return effect }
    return effect.observed(by: sink)
  }

  /// The reduction a Station runs: over the base built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the base built once; the base's check.
  @inlinable
  public func _build() -> _Reduction<Base.State, Base.Action> {
    let (base, audit) = _BuiltDripper.building(self.base)
    let built = _ObserveModifier<_BuiltDripper<Base.State, Base.Action>>(base: base, observer: observer)
    return reduction(of: built, audit: audit)
  }

}

extension Effect {
  /// The effect, telling `sink` when each of its `run` parts starts, finishes, is cancelled or
  /// fails.
  @usableFromInline
  func observed(by sink: @escaping @Sendable (EffectEvent) -> Void) -> Self {
    rebuilt(sending: { $0 }, running: { $0.observed(by: sink) })
  }
}

extension EffectRun {
  func observed(by sink: @escaping @Sendable (EffectEvent) -> Void) -> EffectRun {
    let operation = self.operation
    let origin = self.origin.description
    return EffectRun(
      priority: priority,
      operation: { pour in
        sink(EffectEvent(.started, origin: origin))
        do {
          try await operation(pour)
          sink(EffectEvent(Task.isCancelled ? .cancelled : .finished, origin: origin))
        } catch is CancellationError {
          sink(EffectEvent(.cancelled, origin: origin))
          throw CancellationError()
        } catch {
          sink(EffectEvent(.failed(error), origin: origin))
          throw error
        }
      },
      handler: handler, dependencies: dependencies, origin: self.origin)
  }
}
