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
  /// state becomes `nil` (or, for an `Identifiable` child, is replaced by one of another `id`), its
  /// effects still running are cancelled. An action that arrives while the
  /// state is `nil` is ignored and reported as a ``Diagnostic``. The child's cancellation ids are its
  /// own: they never clash with the parent's.
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: any WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    _IfLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(), childID: nil)
  }

  /// Runs a child feature on optional, identifiable state, while it is not `nil`; a child replaced
  /// by one with another `id` is a new child.
  ///
  /// As ``Dripper/ifLet(_:action:then:)-9swoe``, and the child's identity counts: when the parent replaces the
  /// child with one of another `id` (a different todo opened in the editor), the old child's
  /// effects are cancelled as if it had been dismissed, and what they would still pour is dropped,
  /// so an old response never reaches the new child. Each child's effects run in a namespace of
  /// their own, keyed by its id.
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: any WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    _IfLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(),
      childID: { AnySendableHashable($0.id) })
  }
}

/// A parent dripper with a child on optional state: see ``Dripper/ifLet(_:action:then:)-9swoe``.
@usableFromInline
struct _IfLetDripper<Parent: Dripper, Child: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toChildState: any WritableKeyPath<Parent.State, Child.State?> & Sendable
  @usableFromInline let toChildAction: CasePath<Parent.Action, Child.Action>
  @usableFromInline let child: Child
  /// The child's id, for identifiable children: a child of another id is another child.
  @usableFromInline let childID: (@Sendable (Child.State) -> AnySendableHashable)?

  @inlinable
  init(
    parent: Parent, toChildState: any WritableKeyPath<Parent.State, Child.State?> & Sendable,
    toChildAction: CasePath<Parent.Action, Child.Action>, child: Child,
    childID: (@Sendable (Child.State) -> AnySendableHashable)?
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
    self.childID = childID
  }

  /// The reduction a Station runs: over the parent and the child built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the parent and the child built once; the
  /// parent's check, then whether the child the Station last saw is gone or replaced by one of
  /// another identity (a reducer around this one may have set it to `nil`), then the child's own
  /// check.
  @inlinable
  public func _build() -> _Reduction<Parent.State, Parent.Action> {
    let (builtParent, parentAudit) = _BuiltDripper.building(parent)
    let (builtChild, childAudit) = _BuiltDripper.building(child)
    let built = _IfLetDripper<
      _BuiltDripper<Parent.State, Parent.Action>, _BuiltDripper<Child.State, Child.Action>
    >(
      parent: builtParent, toChildState: toChildState, toChildAction: toChildAction, child: builtChild,
      childID: childID)
    let node = AuditNode.next()
    let (toChildState, embed) = (toChildState, toChildAction.embed)
    let (identity, namespace) = (identity, namespace)
    let audit: _Audit<Parent.State, Parent.Action> = { state, context in
      _OptionalChild.audit(
        &state[keyPath: toChildState], node: node, identity: identity, namespace: namespace,
        childAudit: childAudit, context: &context
      ).map(embed)
    }
    return reduction(of: built, audit: mergedAudits(parentAudit, audit))
  }

  /// What tells one child from another: its id, for an identifiable child; `true` otherwise.
  @inlinable
  var identity: @Sendable (Child.State) -> AnySendableHashable {
    childID ?? { _ in AnySendableHashable(true) }
  }

  /// The namespace of the effects of the child with an identity: the child's place, and its id for
  /// an identifiable child.
  @inlinable
  var namespace: @Sendable (AnySendableHashable) -> AnySendableHashable {
    let toChildState = toChildState
    guard childID != nil else { return { _ in AnySendableHashable(ChildNamespace(toChildState)) } }
    return { AnySendableHashable(ChildNamespace(toChildState, id: $0)) }
  }

  /// Runs the child for a child action, then the parent; cancels the child's effects if its state
  /// became `nil`, or another child (of another id) took its place.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let toChildState = toChildState
    let runChild: (inout Parent.State, Child.Action) -> Effect<Child.Action>? = { state, childAction in
      guard state[keyPath: toChildState] != nil else { return nil }
      return child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
    }
    let missing = {
      Diagnostic(
        .missingChild,
        "ignored \(tidyDescription(of: action)): its child state \(toChildState as AnyKeyPath) is nil (an effect may "
          + "have outlived the child, or the action was poured after it was dismissed)")
    }
    guard let childID else {
      return parent.reduce(
        into: &state, action: action, withChild: toChildAction,
        identity: { $0[keyPath: toChildState] != nil ? true : nil }, runChild: runChild, missing: missing,
        namespace: { _ in AnySendableHashable(ChildNamespace(toChildState)) })
    }
    return parent.reduce(
      into: &state, action: action, withChild: toChildAction,
      identity: { $0[keyPath: toChildState].map(childID) }, runChild: runChild, missing: missing,
      namespace: namespace)
  }
}

extension Dripper where Action: CasePathable {
  /// Runs `child` while the optional state at `toChildState` holds a value, the action's case named
  /// as TCA names it (see ``CaseKeyPath``).
  ///
  /// ```swift
  /// .ifLet(\.editor, action: \.editor) { Editor() }
  /// ```
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: any WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    ifLet(toChildState, action: CasePath(toChildAction), then: child)
  }

  /// Runs an identifiable `child` while the optional state holds a value, the action's case named
  /// by a key path; its effects are cancelled when its id changes, as with a case path.
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: any WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    ifLet(toChildState, action: CasePath(toChildAction), then: child)
  }
}
