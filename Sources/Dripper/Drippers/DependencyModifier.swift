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
  /// The value is made when the body that applies this modifier is evaluated: once for a Station's
  /// dripper, but each time a child reduces for a modifier inside the child's own body. A value
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
}
