/// Composes drippers written one after another in a ``Dripper/body``.
///
/// The drippers run in order, each seeing the state as the previous one left it, and their effects
/// are merged. `if`, `if`/`else`, `switch`, `if #available` and `for` loops work as in any result
/// builder:
///
/// ```swift
/// var body: some DripperOf<Self> {
///   Scope(state: \.counter, action: .counter) { Counter() }
///   if isLogging { Logger() }
///   Drip { state, action in … }
/// }
/// ```
@resultBuilder
public enum DripperBuilder<State: Sendable, Action: Sendable> {
  /// An empty body: a dripper that does nothing.
  @inlinable
  public static func buildBlock() -> EmptyDripper<State, Action> { EmptyDripper() }

  /// Accepts any dripper of the builder's state and action.
  @inlinable
  public static func buildExpression<D: Dripper<State, Action>>(_ dripper: D) -> D { dripper }

  /// The first dripper of a body.
  @inlinable
  public static func buildPartialBlock<D: Dripper<State, Action>>(first: D) -> D { first }

  /// Runs the drippers so far, then the next one.
  @inlinable
  public static func buildPartialBlock<D0: Dripper<State, Action>, D1: Dripper<State, Action>>(
    accumulated: D0, next: D1
  ) -> _Sequence<D0, D1> {
    _Sequence(accumulated, next)
  }

  /// An `if` without `else`.
  @inlinable
  public static func buildOptional<D: Dripper<State, Action>>(_ dripper: D?) -> _Optional<D> {
    _Optional(wrapped: dripper)
  }

  /// The first branch of an `if`/`else` or `switch`.
  @inlinable
  public static func buildEither<First: Dripper<State, Action>, Second: Dripper<State, Action>>(
    first: First
  ) -> _Conditional<First, Second> {
    .first(first)
  }

  /// The second branch of an `if`/`else` or `switch`.
  @inlinable
  public static func buildEither<First: Dripper<State, Action>, Second: Dripper<State, Action>>(
    second: Second
  ) -> _Conditional<First, Second> {
    .second(second)
  }

  /// An `if #available` branch, type-erased so that its type need not exist on older systems.
  @inlinable
  public static func buildLimitedAvailability<D: Dripper<State, Action>>(
    _ dripper: D
  ) -> Drip<State, Action> {
    Drip.erasing(dripper)
  }

  /// A `for` loop: each dripper runs in turn.
  @inlinable
  public static func buildArray<D: Dripper<State, Action>>(_ drippers: [D]) -> _Array<D> {
    _Array(drippers: drippers)
  }

  /// Two drippers that run in order: the plumbing of a body with several drippers.
  public struct _Sequence<D0: Dripper<State, Action>, D1: Dripper<State, Action>>: Dripper {
    /// A leaf: it implements `reduce`.
    public typealias Body = Never

    @usableFromInline let d0: D0
    @usableFromInline let d1: D1

    @inlinable
    init(_ d0: D0, _ d1: D1) {
      self.d0 = d0
      self.d1 = d1
    }

    /// Runs the first dripper, then the second, and merges their effects.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      let first = d0.reduce(into: &state, action: action)
      return first.merge(with: d1.reduce(into: &state, action: action))
    }

    /// The reduction a Station runs: both drippers built once.
    @inlinable
    public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
      _build().reduce
    }

    /// The reduction a Station runs and its check: both drippers built once, both checks in order.
    @inlinable
    public func _build() -> _Reduction<State, Action> {
      let ((d0, audit0), (d1, audit1)) = (_BuiltDripper.building(d0), _BuiltDripper.building(d1))
      let built = _Sequence<_BuiltDripper<State, Action>, _BuiltDripper<State, Action>>(d0, d1)
      return reduction(of: built, audit: mergedAudits(audit0, audit1))
    }
  }

  /// A dripper that may be absent: the plumbing of an `if` without `else`.
  public struct _Optional<Wrapped: Dripper<State, Action>>: Dripper {
    /// A leaf: it implements `reduce`.
    public typealias Body = Never

    @usableFromInline let wrapped: Wrapped?

    @inlinable
    init(wrapped: Wrapped?) { self.wrapped = wrapped }

    /// Runs the wrapped dripper when there is one.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      wrapped?.reduce(into: &state, action: action) ?? .none
    }

    /// The reduction a Station runs: the wrapped dripper's, built once.
    @inlinable
    public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
      wrapped?._reducer() ?? EmptyDripper()._reducer()
    }

    /// The reduction a Station runs and its check: the wrapped dripper's.
    @inlinable
    public func _build() -> _Reduction<State, Action> {
      wrapped?._build() ?? EmptyDripper()._build()
    }
  }

  /// One of two drippers: the plumbing of `if`/`else` and `switch`.
  public enum _Conditional<First: Dripper<State, Action>, Second: Dripper<State, Action>>: Dripper {
    /// A leaf: it implements `reduce`.
    public typealias Body = Never

    /// The first branch was taken.
    case first(First)
    /// The second branch was taken.
    case second(Second)

    /// Runs the branch that was taken.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch self {
      case .first(let first): first.reduce(into: &state, action: action)
      case .second(let second): second.reduce(into: &state, action: action)
      }
    }

    /// The reduction a Station runs: the branch's, built once.
    @inlinable
    public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
      switch self {
      case .first(let first): first._reducer()
      case .second(let second): second._reducer()
      }
    }

    /// The reduction a Station runs and its check: the branch's.
    @inlinable
    public func _build() -> _Reduction<State, Action> {
      switch self {
      case .first(let first): first._build()
      case .second(let second): second._build()
      }
    }
  }

  /// Drippers built by a `for` loop, run in order.
  public struct _Array<Element: Dripper<State, Action>>: Dripper {
    /// A leaf: it implements `reduce`.
    public typealias Body = Never

    @usableFromInline let drippers: [Element]

    @inlinable
    init(drippers: [Element]) { self.drippers = drippers }

    /// Runs each dripper in order and merges their effects.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      var effect = Effect<Action>.none
      for dripper in drippers {
        effect = effect.merge(with: dripper.reduce(into: &state, action: action))
      }
      return effect
    }

    /// The reduction a Station runs: each dripper built once.
    @inlinable
    public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
      _build().reduce
    }

    /// The reduction a Station runs and its check: each dripper built once, each check in order.
    @inlinable
    public func _build() -> _Reduction<State, Action> {
      let parts = drippers.map { _BuiltDripper.building($0) }
      let built = _Array<_BuiltDripper<State, Action>>(drippers: parts.map(\.0))
      return reduction(of: built, audit: parts.reduce(nil) { mergedAudits($0, $1.1) })
    }
  }
}
