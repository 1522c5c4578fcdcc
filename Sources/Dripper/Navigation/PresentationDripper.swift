extension Dripper {
  /// Runs a presented child feature while its ``PresentationState`` holds state: TCA's
  /// `ifLet(\.$destination, action: \.destination)`.
  ///
  /// ```swift
  /// Drip { state, action in
  ///   switch action {
  ///   case .editTapped:
  ///     state.editor = Editor.State(title: state.title)
  ///     return .none
  ///   case .editor(.presented(.saved(let title))):
  ///     state.title = title
  ///     return .none
  ///   case .editor: return .none
  ///   }
  /// }
  /// .ifLet(\.$editor, action: .editor) { Editor() }
  /// ```
  ///
  /// For `.presented` actions the child runs first, then the parent. For `.dismiss` the parent
  /// runs first, with the child still there, then the child's state becomes `nil`. When the
  /// presentation ends — dismissed, or set to `nil` by the parent — the child's effects are
  /// cancelled and what they would still pour is dropped. Each presentation's effects run in a
  /// namespace of their own, so an effect of an earlier presentation never reaches a later one.
  ///
  /// In the child's reductions and effects, `@Dependency(\.isPresented)` is `true`, and in its
  /// effects `@Dependency(\.dismiss)` pours `.dismiss` for it. An action for a child that is not
  /// presented is ignored and reported as a ``Diagnostic``.
  ///
  /// For several destinations, make the child an enum feature with a case per destination and
  /// scope each with ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-24mt9`` inside it.
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toPresentationState: any WritableKeyPath<State, PresentationState<ChildState>> & Sendable,
    action toPresentationAction: CasePath<Action, PresentationAction<ChildAction>>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    _PresentationDripper(
      parent: self, toPresentationState: toPresentationState, toPresentationAction: toPresentationAction,
      child: child())
  }
}

/// A parent dripper with a presented child: see ``Dripper/ifLet(_:action:then:)-(_,CasePath<Self.Action,PresentationAction<ChildAction>>,_)``.
@usableFromInline
struct _PresentationDripper<Parent: Dripper, Child: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: _DismissingParent<Parent, Child.State, Child.Action>
  @usableFromInline let toPresentationState:
    any WritableKeyPath<Parent.State, PresentationState<Child.State>> & Sendable
  @usableFromInline let toPresentationAction: CasePath<Parent.Action, PresentationAction<Child.Action>>
  @usableFromInline let child: Child

  @inlinable
  init(
    parent: Parent,
    toPresentationState: any WritableKeyPath<Parent.State, PresentationState<Child.State>> & Sendable,
    toPresentationAction: CasePath<Parent.Action, PresentationAction<Child.Action>>, child: Child
  ) {
    self.parent = _DismissingParent(
      parent: parent, toPresentationState: toPresentationState, toPresentationAction: toPresentationAction)
    self.toPresentationState = toPresentationState
    self.toPresentationAction = toPresentationAction
    self.child = child
  }

  /// The reduction a Station runs: over the parent and the child built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    reduction(
      of: _PresentationDripper<
        _BuiltDripper<Parent.State, Parent.Action>, _BuiltDripper<Child.State, Child.Action>
      >(
        parent: _BuiltDripper(parent.parent), toPresentationState: toPresentationState,
        toPresentationAction: toPresentationAction, child: _BuiltDripper(child)))
  }

  /// Runs the child for its actions, then the parent; ends the presentation on `.dismiss`; cancels
  /// the child's effects when its presentation ended.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let toState = toPresentationState
    let child = child
    let runChild:
      (inout Parent.State, PresentationAction<Child.Action>) -> Effect<PresentationAction<Child.Action>>? = {
        state, action in
        guard state[keyPath: toState].state != nil else { return nil }
        guard case .presented(let childAction) = action else { return Effect.none }
        let effect = DependencyValues.presenting {
          child.reduce(into: &state[keyPath: toState].state!, action: childAction)
        }
        return effect.map(PresentationAction.presented).dismissing(with: .dismiss)
      }
    let missing = { Diagnostic.missingPresentation(of: Child.State.self, in: Parent.State.self, for: action) }
    return parent.reduce(
      into: &state, action: action, withChild: toPresentationAction,
      identity: { $0[keyPath: toState].state == nil ? nil : $0[keyPath: toState].presentation },
      runChild: runChild, missing: missing,
      namespace: { AnySendableHashable(ChildNamespace(toState, id: AnySendableHashable($0))) })
  }
}

/// The parent of a presentation, which ends it on `.dismiss` once it has seen the action.
@usableFromInline
struct _DismissingParent<Parent: Dripper, ChildState: Sendable, ChildAction: Sendable>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toPresentationState:
    any WritableKeyPath<Parent.State, PresentationState<ChildState>> & Sendable
  @usableFromInline let toPresentationAction: CasePath<Parent.Action, PresentationAction<ChildAction>>

  @inlinable
  init(
    parent: Parent,
    toPresentationState: any WritableKeyPath<Parent.State, PresentationState<ChildState>> & Sendable,
    toPresentationAction: CasePath<Parent.Action, PresentationAction<ChildAction>>
  ) {
    self.parent = parent
    self.toPresentationState = toPresentationState
    self.toPresentationAction = toPresentationAction
  }

  /// Runs the parent; then, for `.dismiss`, ends the presentation it was meant for.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard case .dismiss = toPresentationAction.extract(action) else {
      return parent.reduce(into: &state, action: action)
    }
    let presentation = state[keyPath: toPresentationState].presentation
    let effect = parent.reduce(into: &state, action: action)
    if state[keyPath: toPresentationState].presentation == presentation {
      state[keyPath: toPresentationState].state = nil
    }
    return effect
  }
}

extension Diagnostic {
  /// An action for a presented child that is not presented.
  @usableFromInline
  static func missingPresentation(of child: Any.Type, in parent: Any.Type, for action: Any) -> Diagnostic {
    Diagnostic(
      .missingChild,
      "ignored \(Dump.line(action)): no \(Dump.name(of: child)) is presented in \(Dump.name(of: parent)) "
        + "(an effect may have outlived the presentation, or the action was poured after it was dismissed)")
  }
}
