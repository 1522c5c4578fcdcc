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
  /// reported as a ``Diagnostic``. Each `ifCaseLet` is a namespace of its own, told apart by where
  /// it is written (`fileID`, `line` and `column`, which you never pass): two over the same child
  /// type, for two cases, never cancel each other's effects.
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CasePath<State, ChildState>,
    action toChildAction: CasePath<Action, ChildAction>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    _IfCaseLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(), childID: nil,
      site: CallSite(fileID: fileID, line: line, column: column))
  }

  /// Runs a child feature with identifiable state while an enum-shaped state is in one case; a
  /// child replaced by one with another `id`, in the same case, is a new child.
  ///
  /// As ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-24mt9``, and when the parent replaces the child with one of another
  /// `id`, the old child's effects are cancelled and what they would still pour is dropped.
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CasePath<State, ChildState>,
    action toChildAction: CasePath<Action, ChildAction>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    _IfCaseLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(),
      childID: { AnySendableHashable($0.id) }, site: CallSite(fileID: fileID, line: line, column: column))
  }
}

extension Dripper {
  /// Runs a child feature while an enum-shaped state is in one case, named by the case itself:
  /// no case paths to write.
  ///
  /// ```swift
  /// enum State { case loggedOut(LoggedOut.State), loggedIn(LoggedIn.State) }
  /// enum Action { case loggedOut(LoggedOut.Action), loggedIn(LoggedIn.Action), … }
  /// …
  /// Drip { state, action in … }
  ///   .ifCaseLet(State.loggedIn, action: Action.loggedIn) { LoggedIn() }
  /// ```
  ///
  /// As ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-24mt9``: when the state leaves
  /// the case, the child's effects are cancelled. This is the form for an enum state that is not
  /// presented; a presented enum (a destination) is a new presentation when its case changes, so
  /// its cases can be ``Scope``s. The cases' extractions are found by reflection (see
  /// ``CasePath/init(_:)-((Value)->Root)``).
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ embedState: @escaping @Sendable (ChildState) -> State,
    action embedAction: @escaping @Sendable (ChildAction) -> Action,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    ifCaseLet(
      CasePath(embedState), action: CasePath(embedAction), fileID: fileID, line: line, column: column,
      then: child)
  }

  /// Runs a child feature with identifiable state while an enum-shaped state is in one case,
  /// named by the case itself; a child replaced by one with another `id`, in the same case, is a
  /// new child.
  ///
  /// As ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-24mt9``, with the cases' extractions
  /// found by reflection (see ``CasePath/init(_:)-((Value)->Root)``).
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ embedState: @escaping @Sendable (ChildState) -> State,
    action embedAction: @escaping @Sendable (ChildAction) -> Action,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    ifCaseLet(
      CasePath(embedState), action: CasePath(embedAction), fileID: fileID, line: line, column: column,
      then: child)
  }
}

/// A parent dripper with a child in one case of its state: see ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-24mt9``.
@usableFromInline
struct _IfCaseLetDripper<Parent: Dripper, Child: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toChildState: CasePath<Parent.State, Child.State>
  @usableFromInline let toChildAction: CasePath<Parent.Action, Child.Action>
  @usableFromInline let child: Child
  /// The child's id, for identifiable children: a child of another id is another child.
  @usableFromInline let childID: (@Sendable (Child.State) -> AnySendableHashable)?
  /// Where the `ifCaseLet` is written: its namespace, apart from its siblings'.
  @usableFromInline let site: CallSite

  @inlinable
  init(
    parent: Parent, toChildState: CasePath<Parent.State, Child.State>,
    toChildAction: CasePath<Parent.Action, Child.Action>, child: Child,
    childID: (@Sendable (Child.State) -> AnySendableHashable)?, site: CallSite
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
    self.childID = childID
    self.site = site
  }

  /// The reduction a Station runs: over the parent and the child built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the parent and the child built once; the
  /// parent's check, then whether the child the Station last saw left its case or was replaced by
  /// one of another identity (a reducer around this one may have changed the case), then the
  /// child's own check.
  @inlinable
  public func _build() -> _Reduction<Parent.State, Parent.Action> {
    let (builtParent, parentAudit) = _BuiltDripper.building(parent)
    let (builtChild, childAudit) = _BuiltDripper.building(child)
    let built = _IfCaseLetDripper<
      _BuiltDripper<Parent.State, Parent.Action>, _BuiltDripper<Child.State, Child.Action>
    >(
      parent: builtParent, toChildState: toChildState, toChildAction: toChildAction, child: builtChild,
      childID: childID, site: site)
    let node = AuditNode.next()
    let (toChildState, embed) = (toChildState, toChildAction.embed)
    let (identity, namespace) = (identity, namespace)
    let audit: _Audit<Parent.State, Parent.Action> = { state, context in
      var child = toChildState.extract(state)
      let effect = _OptionalChild.audit(
        &child, node: node, identity: identity, namespace: namespace, childAudit: childAudit,
        context: &context)
      if childAudit != nil, let child { state = toChildState.embed(child) }
      return effect.map(embed)
    }
    return reduction(of: built, audit: mergedAudits(parentAudit, audit))
  }

  /// What tells one child from another: its id, for an identifiable child; its site otherwise.
  @inlinable
  var identity: @Sendable (Child.State) -> AnySendableHashable {
    let site = site
    return childID ?? { _ in AnySendableHashable(site) }
  }

  /// The namespace of the effects of the child with an identity: its type, and its site (and id,
  /// for an identifiable child).
  @inlinable
  var namespace: @Sendable (AnySendableHashable) -> AnySendableHashable {
    let site = site
    guard childID != nil else {
      return { _ in AnySendableHashable(ChildNamespace(Child.self, id: AnySendableHashable(site))) }
    }
    return {
      AnySendableHashable(ChildNamespace(Child.self, id: AnySendableHashable(SitedID(site: site, id: $0))))
    }
  }

  /// Runs the child for a child action while the state is in its case, then the parent; cancels
  /// the child's effects if the state left the case, or another child (of another id) took its
  /// place.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let toChildState = toChildState
    let runChild: (inout Parent.State, Child.Action) -> Effect<Child.Action>? = { state, childAction in
      guard var childState = toChildState.extract(state) else { return nil }
      let effect = child.reduce(into: &childState, action: childAction)
      state = toChildState.embed(childState)
      return effect
    }
    let missing = { Diagnostic.missingCase(of: Parent.State.self, for: action) }
    let site = site
    guard let childID else {
      return parent.reduce(
        into: &state, action: action, withChild: toChildAction,
        identity: { toChildState.matches($0) ? true : nil }, runChild: runChild, missing: missing,
        namespace: { _ in AnySendableHashable(ChildNamespace(Child.self, id: AnySendableHashable(site))) })
    }
    return parent.reduce(
      into: &state, action: action, withChild: toChildAction,
      identity: { toChildState.extract($0).map(childID) }, runChild: runChild, missing: missing,
      namespace: namespace)
  }
}

extension Dripper where State: CasePathable, Action: CasePathable {
  /// Runs `child` while the state is in one case, the cases named as TCA names them, by key paths
  /// into their enums' case paths (see ``CaseKeyPath``).
  ///
  /// ```swift
  /// .ifCaseLet(\.loggedIn, action: \.loggedIn) { LoggedIn() }
  /// ```
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CaseKeyPath<State, ChildState>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action> where ChildState == Child.State, ChildAction == Child.Action {
    ifCaseLet(
      CasePath(toChildState), action: CasePath(toChildAction), fileID: fileID, line: line, column: column,
      then: child)
  }

  /// Runs `child` while the state is in one case, the cases named by key paths; an identifiable
  /// child's effects are cancelled when its id changes, as with case paths.
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CaseKeyPath<State, ChildState>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> some Dripper<State, Action>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    ifCaseLet(
      CasePath(toChildState), action: CasePath(toChildAction), fileID: fileID, line: line, column: column,
      then: child)
  }
}
