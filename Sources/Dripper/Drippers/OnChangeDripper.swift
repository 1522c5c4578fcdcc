extension Dripper {
  /// Runs an effect when part of the state changes in a reduction.
  ///
  /// ```swift
  /// Drip { state, action in … }
  ///   .onChange(of: \.query) { old, new in
  ///     .send(.search(new)).debounce(id: SearchID(), for: .milliseconds(300), clock: clock)
  ///   }
  /// ```
  ///
  /// The value is compared before and after each reduction of this dripper; the effect runs only
  /// when they differ.
  @inlinable
  public func onChange<Value: Equatable & Sendable>(
    of value: any KeyPath<State, Value> & Sendable,
    _ effect: @escaping @Sendable (_ old: Value, _ new: Value) -> Effect<Action>
  ) -> _OnChangeDripper<Self, Value> {
    _OnChangeDripper(base: self, value: value, effect: effect)
  }
}

/// A dripper that runs an effect when part of the state changes: see ``Dripper/onChange(of:_:)``.
public struct _OnChangeDripper<Base: Dripper, Value: Equatable & Sendable>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let base: Base
  @usableFromInline let value: any KeyPath<Base.State, Value> & Sendable
  @usableFromInline let effect: @Sendable (Value, Value) -> Effect<Base.Action>

  @inlinable
  init(
    base: Base, value: any KeyPath<Base.State, Value> & Sendable,
    effect: @escaping @Sendable (Value, Value) -> Effect<Base.Action>
  ) {
    self.base = base
    self.value = value
    self.effect = effect
  }

  /// Reduces, then compares the value and runs the effect if it changed.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let old = state[keyPath: value]
    let reduced = base.reduce(into: &state, action: action)
    let new = state[keyPath: value]
    return old == new ? reduced : reduced.merge(with: effect(old, new))
  }
}
