extension Dripper {
  /// Runs this dripper, and the effects it creates, with one dependency replaced.
  ///
  /// ```swift
  /// var body: some DripperOf<Self> {
  ///   Scope(state: \.preview, action: .preview) {
  ///     Preview().dependency(\.clock, ImmediateClock())
  ///   }
  /// }
  /// ```
  ///
  /// The value is made when the body that applies this modifier is evaluated: once, when the
  /// Station starts, wherever the modifier is in the tree of features (``reduce(into:action:)``
  /// called by hand evaluates the body at each call, as in TCA). A value
  /// that keeps state (an incrementing generator) is best given to the whole Station, with
  /// ``Station/init(initialState:observers:dripper:withDependencies:)``.
  public func dependency<Value: Sendable>(
    _ keyPath: any WritableKeyPath<DependencyValues, Value> & Sendable, _ value: Value
  ) -> some Dripper<State, Action> {
    _DependencyModifier(base: self) { $0[keyPath: keyPath] = value }
  }

  /// Runs this dripper, and the effects it creates, with changed dependencies.
  public func dependencies(
    _ update: @escaping @Sendable (inout DependencyValues) -> Void
  ) -> some Dripper<State, Action> {
    _DependencyModifier(base: self, update: update)
  }
}

/// A dripper that runs another with changed dependencies: see ``Dripper/dependency(_:_:)``.
@usableFromInline
struct _DependencyModifier<Base: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  let base: Base
  let update: @Sendable (inout DependencyValues) -> Void

  /// Reduces with the changed dependencies in force.
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    var values = DependencyValues.current
    update(&values)
    return DependencyValues.bind(values) {
      base.reduce(into: &state, action: action)
    }
  }

  /// The reduction a Station runs: over the base built once.
  public func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the base built once; the base's check.
  public func _build() -> _Reduction<Base.State, Base.Action> {
    let (base, audit) = _BuiltDripper.building(self.base)
    let built = _DependencyModifier<_BuiltDripper<Base.State, Base.Action>>(base: base, update: update)
    return reduction(of: built, audit: audit)
  }

}
