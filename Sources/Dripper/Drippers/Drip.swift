/// A dripper made of a closure that evolves the state and returns effects.
///
/// `Drip` is the building block of most features:
///
/// ```swift
/// var body: some DripperOf<Self> {
///   Drip { state, action in
///     switch action {
///     case .increase:
///       state.count += 1
///       return .none
///     case .decreaseLater:
///       return .run { pour in
///         try await Task.sleep(for: .seconds(1))
///         await pour(.decrease)
///       }
///     }
///   }
/// }
/// ```
public struct Drip<State: Sendable, Action: Sendable>: Dripper {
  /// A `Drip` is a leaf: it has no body.
  public typealias Body = Never

  @usableFromInline
  let reduction: @Sendable (inout State, Action) -> Effect<Action>
  /// The erased dripper's check (see ``_Reduction``); `nil` for a closure.
  @usableFromInline
  let auditor: _Audit<State, Action>?

  /// Creates a dripper from a closure.
  ///
  /// - Parameter reduce: Evolves the state for an action and returns the effects to run.
  @inlinable
  public init(_ reduce: @escaping @Sendable (_ state: inout State, _ action: Action) -> Effect<Action>) {
    self.reduction = reduce
    self.auditor = nil
  }

  /// Wraps another dripper, erasing its type; its reduction, body included, is built once, here.
  ///
  /// `if #available` in a ``DripperBuilder`` uses this. A static function, not an initializer as
  /// TCA's `Reduce(_:)` is: with the closure's initializer the only one, a mistake inside a
  /// `Drip { … }` closure is reported where it is, rather than as "`(_, _) -> _` cannot conform to
  /// 'Dripper'".
  ///
  /// ```swift
  /// let erased = Drip.erasing(Counter())
  /// ```
  @inlinable
  public static func erasing<D: Dripper<State, Action>>(_ dripper: D) -> Drip {
    Drip(built: ReductionBuilding.build(dripper))
  }

  @inlinable
  init(built: _Reduction<State, Action>) {
    self.reduction = built.reduce
    self.auditor = built.audit
  }

  /// Runs the closure.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduction(&state, action)
  }

  /// The reduction a Station runs: the closure itself.
  @inlinable
  public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    reduction
  }

  /// The reduction a Station runs and the erased dripper's check.
  @inlinable
  public func _build() -> _Reduction<State, Action> {
    _Reduction(reduce: reduction, audit: auditor)
  }
}

/// A dripper that does nothing: an empty ``DripperBuilder`` body.
public struct EmptyDripper<State: Sendable, Action: Sendable>: Dripper {
  /// An `EmptyDripper` is a leaf: it has no body.
  public typealias Body = Never

  /// Creates a dripper that leaves the state alone and returns no effects.
  @inlinable
  public init() {}

  /// Returns ``Effect/none`` and leaves `state` alone.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}
