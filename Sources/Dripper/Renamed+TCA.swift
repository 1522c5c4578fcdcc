// TCA's names, for code that carries over: each is a one-click rename to Dripper's in the
// compiler's fix-it, as TCA's own deprecations are.

/// TCA's `Reduce`: a reducer of a closure is a ``Drip``.
@available(*, unavailable, renamed: "Drip")
public typealias Reduce<State: Sendable, Action: Sendable> = Drip<State, Action>

/// TCA's `EmptyReducer`: ``EmptyDripper``.
@available(*, unavailable, renamed: "EmptyDripper")
public typealias EmptyReducer<State: Sendable, Action: Sendable> = EmptyDripper<State, Action>

/// TCA's `@Presents`: ``PresentationState``.
@available(*, unavailable, renamed: "PresentationState")
public typealias Presents<State: Sendable> = PresentationState<State>

extension DependencyValues {
  /// TCA's `continuousClock`: Dripper has one clock dependency, ``clock``.
  @available(*, unavailable, renamed: "clock")
  public var continuousClock: any Clock<Duration> {
    get { clock }
    set { clock = newValue }
  }

  /// TCA's `withRandomNumberGenerator`: ``random``.
  @available(*, unavailable, renamed: "random")
  public var withRandomNumberGenerator: RandomGenerator {
    get { random }
    set { random = newValue }
  }
}
