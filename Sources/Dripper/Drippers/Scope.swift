/// Runs a child feature's dripper on part of the parent's state, for the parent's actions that
/// carry a child action.
///
/// ```swift
/// var body: some DripperOf<Self> {
///   Scope(state: \.counter, action: .counter) {
///     Counter()
///   }
///   Drip { state, action in … }   // the parent's own logic, which sees the child's result
/// }
/// ```
///
/// The child's effects are mapped back to the parent's actions. Actions that do not carry a child
/// action pass by. With enum-shaped state, scope a child to one case with
/// ``init(state:action:child:)-(CasePath<ParentState,ChildState>,_,_)``: the child runs only while
/// the state is in that case.
public struct Scope<ParentState: Sendable, ParentAction: Sendable, Child: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let toChildState: ScopedState<ParentState, Child.State>
  @usableFromInline let toChildAction: CasePath<ParentAction, Child.Action>
  @usableFromInline let child: Child

  /// Scopes a child to the part of the state at `toChildState`.
  ///
  /// - Parameters:
  ///   - toChildState: Where the child's state lives in the parent's.
  ///   - toChildAction: The parent's action case that carries the child's actions.
  ///   - child: The child's dripper.
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: any WritableKeyPath<ParentState, ChildState> & Sendable,
    action toChildAction: CasePath<ParentAction, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(toChildState: .keyPath(toChildState), toChildAction: toChildAction, child: child())
  }

  /// Scopes a child to one case of an enum-shaped state; it runs only while the state is in that
  /// case, and an action that arrives in another case is reported as a ``Diagnostic``.
  ///
  /// ```swift
  /// Scope(state: .loggedIn, action: .loggedIn) { LoggedIn() }
  /// ```
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: CasePath<ParentState, ChildState>,
    action toChildAction: CasePath<ParentAction, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(toChildState: .casePath(toChildState), toChildAction: toChildAction, child: child())
  }

  /// Scopes a child to the part of the state at `toChildState`, the action's case named as TCA
  /// names it, by a key path into the action's case paths (see ``CaseKeyPath``).
  ///
  /// ```swift
  /// Scope(state: \.counter, action: \.counter) { Counter() }
  /// ```
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: any WritableKeyPath<ParentState, ChildState> & Sendable,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action, ParentAction: CasePathable {
    self.init(state: toChildState, action: CasePath(toChildAction), child: child)
  }

  /// Scopes a child to one case of an enum-shaped state, both cases named by key paths into their
  /// enums' case paths (see ``CaseKeyPath``).
  ///
  /// ```swift
  /// Scope(state: \.loggedIn, action: \.loggedIn) { LoggedIn() }
  /// ```
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: CaseKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> child: () -> Child
  )
  where
    ChildState == Child.State, ChildAction == Child.Action, ParentState: CasePathable,
    ParentAction: CasePathable
  {
    self.init(state: CasePath(toChildState), action: CasePath(toChildAction), child: child)
  }

  /// Scopes a child to one case of an enum-shaped state, named by its cases alone: a feature whose
  /// state is an enum of features (TCA's `@Reducer enum Destination`) costs the enums and one
  /// line a case.
  ///
  /// ```swift
  /// struct Destination: Dripper {
  ///   enum State: Equatable, Sendable { case login(Login.State), game(Game.State) }
  ///   enum Action: Sendable { case login(Login.Action), game(Game.Action) }
  ///   var body: some DripperOf<Self> {
  ///     Scope(state: State.login, action: Action.login) { Login() }
  ///     Scope(state: State.game, action: Action.game) { Game() }
  ///   }
  /// }
  /// ```
  ///
  /// The cases' extractions are found by reflection (see ``CasePath/init(_:)-((Value)->Root)``): about 1.7 µs
  /// an action. For a case that reduces many actions a second, pass case paths with
  /// pattern matches to ``init(state:action:child:)-(CasePath<ParentState,ChildState>,_,_)``.
  ///
  /// As TCA's `Scope` over a case, it keeps the child's effects running when the state leaves the
  /// case: right for a presented destination, whose change of case is a new presentation. For an
  /// enum state that is not presented, use ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-24mt9``
  /// with the cases, which cancels them.
  @inlinable
  public init<ChildState, ChildAction>(
    state embedState: @escaping @Sendable (ChildState) -> ParentState,
    action embedAction: @escaping @Sendable (ChildAction) -> ParentAction,
    @DripperBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(
      toChildState: .casePath(CasePath(embedState)), toChildAction: CasePath(embedAction), child: child())
  }

  /// The scope both public initializers make, and the one ``_reducer()`` makes over the child
  /// built.
  @inlinable
  init(
    toChildState: ScopedState<ParentState, Child.State>, toChildAction: CasePath<ParentAction, Child.Action>,
    child: Child
  ) {
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
  }

  /// The reduction a Station runs: this scope over its child built once.
  @inlinable
  public func _reducer() -> @Sendable (inout ParentState, ParentAction) -> Effect<ParentAction> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: this scope over its child built once; the
  /// child's check, on the child's state.
  @inlinable
  public func _build() -> _Reduction<ParentState, ParentAction> {
    let (child, childAudit) = _BuiltDripper.building(self.child)
    let built = Scope<ParentState, ParentAction, _BuiltDripper<Child.State, Child.Action>>(
      toChildState: toChildState, toChildAction: toChildAction, child: child)
    guard let childAudit else { return reduction(of: built, audit: nil) }
    let (toChildState, embed) = (toChildState, toChildAction.embed)
    return reduction(
      of: built,
      audit: { state, context in
        switch toChildState {
        case .keyPath(let keyPath):
          return childAudit(&state[keyPath: keyPath], &context).map(embed)
        case .casePath(let casePath):
          guard var childState = casePath.extract(state) else { return .none }
          let effect = childAudit(&childState, &context)
          state = casePath.embed(childState)
          return effect.map(embed)
        }
      })
  }

  /// Runs the child for a child action.
  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(action) else { return .none }
    switch toChildState {
    case .keyPath(let keyPath):
      let effect = child.reduce(into: &state[keyPath: keyPath], action: childAction)
      return effect.isNone ? .none : effect.map(toChildAction.embed)
    case .casePath(let casePath):
      guard var childState = casePath.extract(state) else {
        return .report(Diagnostic.missingCase(of: ParentState.self, for: action))
      }
      let effect = child.reduce(into: &childState, action: childAction)
      state = casePath.embed(childState)
      return effect.isNone ? .none : effect.map(toChildAction.embed)
    }
  }
}

/// Where a ``Scope``'s child state lives in its parent's: a field, or a case. Not nested in
/// `Scope`, so that it does not depend on the child's dripper type: a scope over the child built
/// (``Scope/_reducer()``) takes it as it is.
@usableFromInline
enum ScopedState<Parent, Child>: Sendable {
  case keyPath(any WritableKeyPath<Parent, Child> & Sendable)
  case casePath(CasePath<Parent, Child>)
}
