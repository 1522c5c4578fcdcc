extension Dripper {
  /// Runs a child feature on optional state, while it is not `nil`.
  ///
  /// ```swift
  /// var body: some DripperOf<Self> {
  ///   Drip { state, action in
  ///     switch action {
  ///     case .editTapped: state.editor = Editor.State(); return .none
  ///     case .editor(.saveTapped): state.editor = nil; return .none   // sees the child's result
  ///     case .editor: return .none
  ///     }
  ///   }
  ///   .ifLet(\.editor, action: .editor) { Editor() }
  /// }
  /// ```
  ///
  /// For child actions, the child runs first, so that the parent sees its result. When the child's
  /// state becomes `nil`, its effects still running are cancelled. An action that arrives while the
  /// state is `nil` is ignored and reported as a ``Diagnostic``. The child's cancellation ids are its
  /// own: they never clash with the parent's.
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: any WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> _IfLetDripper<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
    _IfLetDripper(parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child())
  }
}

/// A parent dripper with a child on optional state: see ``Dripper/ifLet(_:action:then:)``.
public struct _IfLetDripper<Parent: Dripper, Child: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toChildState: any WritableKeyPath<Parent.State, Child.State?> & Sendable
  @usableFromInline let toChildAction: CasePath<Parent.Action, Child.Action>
  @usableFromInline let child: Child

  @inlinable
  init(
    parent: Parent, toChildState: any WritableKeyPath<Parent.State, Child.State?> & Sendable,
    toChildAction: CasePath<Parent.Action, Child.Action>, child: Child
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
  }

  /// Runs the child for a child action, then the parent; cancels the child's effects if its state
  /// became `nil`.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let toChildState = toChildState
    return parent.reduce(
      into: &state, action: action, withChild: toChildAction,
      isPresent: { $0[keyPath: toChildState] != nil },
      runChild: { state, childAction in
        guard state[keyPath: toChildState] != nil else { return nil }
        return child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
      },
      missing: {
        Diagnostic(
          .missingChild,
          "ignored \(action): its child state \(toChildState as AnyKeyPath) is nil (an effect may "
            + "have outlived the child, or the action was poured after it was dismissed)")
      },
      namespace: { namespace })
  }

  @usableFromInline
  var namespace: AnySendableHashable { AnySendableHashable(ChildNamespace(toChildState)) }
}

extension Dripper {
  /// Runs a child feature while an enum-shaped state is in one case.
  ///
  /// ```swift
  /// enum State { case loggedOut(LoggedOut.State), loggedIn(LoggedIn.State) }
  /// …
  /// Drip { state, action in … }
  ///   .ifCaseLet(.loggedIn, action: .loggedIn) { LoggedIn() }
  /// ```
  ///
  /// For child actions the child runs first. When the state leaves the case, the child's effects
  /// are cancelled. An action that arrives while the state is in another case is ignored and
  /// reported as a ``Diagnostic``.
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CasePath<State, ChildState>,
    action toChildAction: CasePath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> _IfCaseLetDripper<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
    _IfCaseLetDripper(parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child())
  }
}

/// A parent dripper with a child in one case of its state: see ``Dripper/ifCaseLet(_:action:then:)``.
public struct _IfCaseLetDripper<Parent: Dripper, Child: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toChildState: CasePath<Parent.State, Child.State>
  @usableFromInline let toChildAction: CasePath<Parent.Action, Child.Action>
  @usableFromInline let child: Child

  @inlinable
  init(
    parent: Parent, toChildState: CasePath<Parent.State, Child.State>,
    toChildAction: CasePath<Parent.Action, Child.Action>, child: Child
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
  }

  /// Runs the child for a child action while the state is in its case, then the parent; cancels
  /// the child's effects if the state left the case.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let toChildState = toChildState
    return parent.reduce(
      into: &state, action: action, withChild: toChildAction,
      isPresent: toChildState.matches,
      runChild: { state, childAction in
        guard var childState = toChildState.extract(state) else { return nil }
        let effect = child.reduce(into: &childState, action: childAction)
        state = toChildState.embed(childState)
        return effect
      },
      missing: { Diagnostic.missingCase(of: Parent.State.self, for: action) },
      namespace: { AnySendableHashable(ChildNamespace(Child.self)) })
  }
}

extension Dripper {
  /// The reduction of a parent with a child that may be absent, shared by `ifLet` and
  /// `ifCaseLet`.
  ///
  /// For a child action, the child runs first (`runChild` returns `nil` when the child is absent:
  /// the action is then reported with `missing`). Then the parent runs; if its reduction made the
  /// child absent, the child's effects are cancelled. The child's namespace is made only when an
  /// effect needs it, never for an action that leaves the child alone.
  @inlinable
  func reduce<ChildAction>(
    into state: inout State, action: Action, withChild toChildAction: CasePath<Action, ChildAction>,
    isPresent: (State) -> Bool,
    runChild: (inout State, ChildAction) -> Effect<ChildAction>?,
    missing: () -> Diagnostic,
    namespace: () -> AnySendableHashable
  ) -> Effect<Action> {
    var childEffect = Effect<Action>.none
    if let childAction = toChildAction.extract(action) {
      if let effect = runChild(&state, childAction) {
        if !effect.isNone { childEffect = effect.map(toChildAction.embed).namespaced(namespace()) }
      } else {
        childEffect = .report(missing())
      }
    }
    let wasPresent = isPresent(state)
    var effect = childEffect.merge(with: reduce(into: &state, action: action))
    if wasPresent && !isPresent(state) {
      effect = effect.merge(with: .cancelNamespace(namespace()))
    }
    return effect
  }
}
