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
  ) -> some Dripper<State, Action> {
    onChange(of: value, removeDuplicates: { $0 == $1 }, effect)
  }

  /// Runs an effect when part of the state changes, for a value that is not `Equatable`:
  /// `removeDuplicates` says when two values are the same.
  ///
  /// ```swift
  /// .onChange(of: \.draft, removeDuplicates: { $0.text == $1.text }) { _, new in .send(.validate) }
  /// ```
  @inlinable
  public func onChange<Value: Sendable>(
    of value: any KeyPath<State, Value> & Sendable,
    removeDuplicates isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
    _ effect: @escaping @Sendable (_ old: Value, _ new: Value) -> Effect<Action>
  ) -> some Dripper<State, Action> {
    _OnChangeDripper(base: self, value: value, isDuplicate: isDuplicate) { old, new in
      Drip { _, _ in effect(old, new) }
    }
  }

  /// Runs a dripper when part of the state changes in a reduction: it may change the state too,
  /// as TCA's reducer-returning `onChange` does.
  ///
  /// ```swift
  /// Drip { state, action in … }
  ///   .onChange(of: \.filter) { _, _ in
  ///     Drip { state, _ in
  ///       state.page = 0
  ///       return .none
  ///     }
  ///   }
  /// ```
  ///
  /// The dripper runs after this one, with the same action and the changed state; its effect is
  /// merged with this one's.
  @inlinable
  public func onChange<Value: Equatable & Sendable, Reaction: Dripper<State, Action>>(
    of value: any KeyPath<State, Value> & Sendable,
    @DripperBuilder<State, Action> _ reaction: @escaping @Sendable (_ old: Value, _ new: Value) -> Reaction
  ) -> some Dripper<State, Action> {
    _OnChangeDripper(base: self, value: value, isDuplicate: { $0 == $1 }, reaction: reaction)
  }

  /// Runs a dripper when part of the state changes, for a value that is not `Equatable`:
  /// `removeDuplicates` says when two values are the same.
  @inlinable
  public func onChange<Value: Sendable, Reaction: Dripper<State, Action>>(
    of value: any KeyPath<State, Value> & Sendable,
    removeDuplicates isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
    @DripperBuilder<State, Action> _ reaction: @escaping @Sendable (_ old: Value, _ new: Value) -> Reaction
  ) -> some Dripper<State, Action> {
    _OnChangeDripper(base: self, value: value, isDuplicate: isDuplicate, reaction: reaction)
  }
}

/// A dripper that reacts when part of the state changes: see `onChange(of:_:)`.
@usableFromInline
struct _OnChangeDripper<Base: Dripper, Value: Sendable, Reaction: Dripper<Base.State, Base.Action>>:
  Dripper
{
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let base: Base
  @usableFromInline let value: any KeyPath<Base.State, Value> & Sendable
  @usableFromInline let isDuplicate: @Sendable (Value, Value) -> Bool
  @usableFromInline let reaction: @Sendable (Value, Value) -> Reaction

  @inlinable
  init(
    base: Base, value: any KeyPath<Base.State, Value> & Sendable,
    isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
    reaction: @escaping @Sendable (Value, Value) -> Reaction
  ) {
    self.base = base
    self.value = value
    self.isDuplicate = isDuplicate
    self.reaction = reaction
  }

  /// Reduces, then compares the value and runs the reaction if it changed.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let old = state[keyPath: value]
    let reduced = base.reduce(into: &state, action: action)
    let new = state[keyPath: value]
    guard !isDuplicate(old, new) else { return reduced }
    return reduced.merge(with: reaction(old, new).reduce(into: &state, action: action))
  }

  /// The reduction a Station runs: over the base built once. The reaction's dripper is made for
  /// each change, with the values it saw.
  @inlinable
  public func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the base built once; the base's check.
  @inlinable
  public func _build() -> _Reduction<Base.State, Base.Action> {
    let (base, audit) = _BuiltDripper.building(self.base)
    let built = _OnChangeDripper<_BuiltDripper<Base.State, Base.Action>, Value, Reaction>(
      base: base, value: value, isDuplicate: isDuplicate, reaction: reaction)
    return reduction(of: built, audit: audit)
  }

}
