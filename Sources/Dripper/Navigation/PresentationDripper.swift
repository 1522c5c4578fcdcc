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

extension Dripper {
  /// Presents state that has no logic of its own — an ``AlertState``, a ``ConfirmationDialogState``,
  /// or a destination whose cases have none: TCA's `ifLet(\.$alert, action: \.alert)`.
  ///
  /// ```swift
  /// Drip { state, action in
  ///   switch action {
  ///   case .alert(.presented(.confirmDeletion)):
  ///     state.isDeleted = true           // the alert is dismissed after this reduction
  ///     return .none
  ///   case .alert, .deleteTapped: …
  ///   }
  /// }
  /// .ifLet(\.$alert, action: .alert)
  /// ```
  ///
  /// An alert or a dialog dismisses itself once the parent has seen the action of the button that
  /// was tapped, as TCA's ephemeral presentations do; the same holds for an enum destination while
  /// it is in a case that holds one. `.dismiss` (a cancel button, a tap outside) ends it too.
  @inlinable
  public func ifLet<ChildState, ChildAction>(
    _ toPresentationState: any WritableKeyPath<State, PresentationState<ChildState>> & Sendable,
    action toPresentationAction: CasePath<Action, PresentationAction<ChildAction>>
  ) -> some Dripper<State, Action> {
    ifLet(toPresentationState, action: toPresentationAction) { EmptyDripper<ChildState, ChildAction>() }
  }
}

extension Dripper where Action: CasePathable {
  /// Presents `child` while the state at `toPresentationState` holds one, the action's case named as
  /// TCA names it (see ``CaseKeyPath``).
  ///
  /// ```swift
  /// .ifLet(\.$destination, action: \.destination) { Destination() }
  /// ```
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toPresentationState: any WritableKeyPath<State, PresentationState<ChildState>> & Sendable,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<ChildAction>>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    ifLet(toPresentationState, action: CasePath(toPresentationAction), then: child)
  }

  /// Presents a child that has no logic of its own (an alert), the action's case named by a key
  /// path: `.ifLet(\.$alert, action: \.alert)`.
  @inlinable
  public func ifLet<ChildState, ChildAction>(
    _ toPresentationState: any WritableKeyPath<State, PresentationState<ChildState>> & Sendable,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<ChildAction>>
  ) -> some Dripper<State, Action> {
    ifLet(toPresentationState, action: CasePath(toPresentationAction))
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
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the parent and the child built once; the
  /// parent's check, then whether the presentation whose child started effects ended (a reducer
  /// around this one may have dismissed or replaced it), then the child's own check.
  @inlinable
  public func _build() -> _Reduction<Parent.State, Parent.Action> {
    let (builtParent, parentAudit) = _BuiltDripper.building(parent.parent)
    let (builtChild, childAudit) = _BuiltDripper.building(child)
    let built = _PresentationDripper<
      _BuiltDripper<Parent.State, Parent.Action>, _BuiltDripper<Child.State, Child.Action>
    >(
      parent: builtParent, toPresentationState: toPresentationState,
      toPresentationAction: toPresentationAction,
      child: builtChild)
    let (toState, embed) = (toPresentationState, toPresentationAction.embed)
    let audit: _Audit<Parent.State, Parent.Action> = { state, context in
      var effect = Effect<Parent.Action>.none
      if let ended = state[keyPath: toState].endedPresentationWithEffects() {
        effect = .cancelNamespace(Self.namespace(ended, at: toState))
      }
      guard let childAudit, state[keyPath: toState].state != nil else { return effect }
      let presentation = state[keyPath: toState].presentation
      let childEffect = childAudit(&state[keyPath: toState].state!, &context)
      if childEffect.isNone { return effect }
      return effect.merge(
        with: childEffect.map { embed(.presented($0)) }.namespaced(Self.namespace(presentation, at: toState)))
    }
    return reduction(of: built, audit: mergedAudits(parentAudit, audit))
  }

  /// Runs the child for its actions, then the parent; ends the presentation on `.dismiss`; cancels
  /// the child's effects when the presentation that started them ended.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let toState = toPresentationState
    var childEffect = Effect<Parent.Action>.none
    // An alert or a dialog the action came from: dismissed once the parent has seen the action,
    // unless the parent presented something else meanwhile.
    var ephemeral: UInt64?
    if let presentationAction = toPresentationAction.extract(action) {
      childEffect = reduceChild(presentationAction, in: &state[keyPath: toState], for: action)
      if case .presented = presentationAction, state[keyPath: toState].isEphemeral {
        ephemeral = state[keyPath: toState].presentation
      }
    }
    var effect = childEffect.merge(with: parent.reduce(into: &state, action: action))
    if let ephemeral, state[keyPath: toState].presentation == ephemeral {
      state[keyPath: toState].state = nil
    }
    if let ended = state[keyPath: toState].endedPresentationWithEffects() {
      effect = effect.merge(with: .cancelNamespace(Self.namespace(ended, at: toState)))
    }
    return effect
  }

  /// Runs the presented child for a `.presented` action, in its presentation's namespace; reports
  /// an action for a child that is not presented.
  @inlinable
  func reduceChild(
    _ presentationAction: PresentationAction<Child.Action>,
    in presentation: inout PresentationState<Child.State>,
    for action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard presentation.state != nil else {
      return .report(.missingPresentation(of: Child.State.self, in: Parent.State.self, for: action))
    }
    guard case .presented(let childAction) = presentationAction else { return .none }
    let child = child
    let effect = DependencyValues.presenting { child.reduce(into: &presentation.state!, action: childAction) }
    if effect.isNone { return .none }
    presentation.presentationWithEffects = presentation.presentation
    let embed = toPresentationAction.embed
    return effect.map(PresentationAction.presented).dismissing(with: .dismiss).map(embed)
      .namespaced(Self.namespace(presentation.presentation, at: toPresentationState))
  }

  /// The namespace of the effects of a presentation.
  @inlinable
  static func namespace(_ presentation: UInt64, at location: any AnyKeyPath & Sendable) -> AnySendableHashable
  {
    AnySendableHashable(ChildNamespace(location, id: AnySendableHashable(presentation)))
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
