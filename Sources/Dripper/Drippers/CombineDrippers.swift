/// Groups drippers into one, to apply a modifier to all of them.
///
/// ```swift
/// var body: some DripperOf<Self> {
///   CombineDrippers {
///     Scope(state: \.profile, action: .profile) { Profile() }
///     Drip { state, action in … }
///   }
///   .ifLet(\.alert, action: .alert) { Alert() }
/// }
/// ```
public struct CombineDrippers<State: Sendable, Action: Sendable, Drippers: Dripper<State, Action>>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let drippers: Drippers

  /// Combines the drippers of the builder; they run in order.
  @inlinable
  public init(@DripperBuilder<State, Action> _ build: () -> Drippers) {
    self.drippers = build()
  }

  /// Runs the drippers in order.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    drippers.reduce(into: &state, action: action)
  }

  /// The reduction a Station runs: the drippers', built once.
  @inlinable
  public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    drippers._reducer()
  }

  /// The reduction a Station runs and its check: the drippers'.
  @inlinable
  public func _build() -> _Reduction<State, Action> {
    drippers._build()
  }
}
