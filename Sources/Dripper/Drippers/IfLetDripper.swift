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
  ) -> _IfLetDripper<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
    _IfLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(), childID: nil)
  }

  /// Runs a child feature on optional, identifiable state, while it is not `nil`; a child replaced
  /// by one with another `id` is a new child.
  ///
  /// As ``Dripper/ifLet(_:action:then:)-1sz``, and the child's identity counts: when the parent replaces the
  /// child with one of another `id` (a different todo opened in the editor), the old child's
  /// effects are cancelled as if it had been dismissed, and what they would still pour is dropped,
  /// so an old response never reaches the new child. Each child's effects run in a namespace of
  /// their own, keyed by its id.
  @inlinable
  public func ifLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: any WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> _IfLetDripper<Self, Child>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    _IfLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(),
      childID: { AnySendableHashable($0.id) })
  }
}

/// A parent dripper with a child on optional state: see ``Dripper/ifLet(_:action:then:)-1sz``.
public struct _IfLetDripper<Parent: Dripper, Child: Dripper>: Dripper {
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
        "ignored \(action): its child state \(toChildState as AnyKeyPath) is nil (an effect may "
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
      namespace: { AnySendableHashable(ChildNamespace(toChildState, id: $0)) })
  }
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
  /// reported as a ``Diagnostic``. Each `ifCaseLet` is a namespace of its own, told apart by where
  /// it is written (`fileID`, `line` and `column`, which you never pass): two over the same child
  /// type, for two cases, never cancel each other's effects.
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CasePath<State, ChildState>,
    action toChildAction: CasePath<Action, ChildAction>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> _IfCaseLetDripper<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
    _IfCaseLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(), childID: nil,
      site: CallSite(fileID: fileID, line: line, column: column))
  }

  /// Runs a child feature with identifiable state while an enum-shaped state is in one case; a
  /// child replaced by one with another `id`, in the same case, is a new child.
  ///
  /// As ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-7eqfc``, and when the parent replaces the child with one of another
  /// `id`, the old child's effects are cancelled and what they would still pour is dropped.
  @inlinable
  public func ifCaseLet<ChildState, ChildAction, Child: Dripper>(
    _ toChildState: CasePath<State, ChildState>,
    action toChildAction: CasePath<Action, ChildAction>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    @DripperBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> _IfCaseLetDripper<Self, Child>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable, ChildState.ID: Sendable
  {
    _IfCaseLetDripper(
      parent: self, toChildState: toChildState, toChildAction: toChildAction, child: child(),
      childID: { AnySendableHashable($0.id) }, site: CallSite(fileID: fileID, line: line, column: column))
  }
}

/// A parent dripper with a child in one case of its state: see ``Dripper/ifCaseLet(_:action:fileID:line:column:then:)-7eqfc``.
public struct _IfCaseLetDripper<Parent: Dripper, Child: Dripper>: Dripper {
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
      namespace: {
        AnySendableHashable(ChildNamespace(Child.self, id: AnySendableHashable(SitedID(site: site, id: $0))))
      })
  }
}

extension Dripper {
  /// The reduction of a parent with a child that may be absent, shared by `ifLet` and
  /// `ifCaseLet`.
  ///
  /// `identity` tells which child is there: `nil` when it is absent, otherwise a value that
  /// changes when another child takes its place (its id, for an identifiable child; `true`
  /// otherwise). For a child action, the child runs first (`runChild` returns `nil` when the child
  /// is absent: the action is then reported with `missing`). Then the parent runs; if its
  /// reduction made the child absent or replaced it, the child's effects are cancelled. The
  /// child's namespace is made only when an effect needs it, never for an action that leaves the
  /// child alone.
  @inlinable
  func reduce<ChildAction, Identity: Hashable>(
    into state: inout State, action: Action, withChild toChildAction: CasePath<Action, ChildAction>,
    identity: (State) -> Identity?,
    runChild: (inout State, ChildAction) -> Effect<ChildAction>?,
    missing: () -> Diagnostic,
    namespace: (Identity) -> AnySendableHashable
  ) -> Effect<Action> {
    var childEffect = Effect<Action>.none
    let before = identity(state)
    if let childAction = toChildAction.extract(action) {
      if let before, let effect = runChild(&state, childAction) {
        if !effect.isNone { childEffect = effect.map(toChildAction.embed).namespaced(namespace(before)) }
      } else {
        childEffect = .report(missing())
      }
    }
    var effect = childEffect.merge(with: reduce(into: &state, action: action))
    if let before, identity(state) != before {
      effect = effect.merge(with: .cancelNamespace(namespace(before)))
    }
    return effect
  }
}

/// Where a composition operator is written: what tells apart two siblings over the same child
/// type.
///
/// The file is compared by the address of its literal, not its text: a body is built again for
/// each action of a child with a `body`, and a site must cost nothing to make.
@usableFromInline
struct CallSite: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let column: UInt

  @inlinable
  init(fileID: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.line = line
    self.column = column
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.line == rhs.line && lhs.column == rhs.column && lhs.fileID.utf8Start == rhs.fileID.utf8Start
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hasher.combine(UInt(bitPattern: fileID.utf8Start))
    hasher.combine(line)
    hasher.combine(column)
  }

  @usableFromInline
  var description: String { "\(fileID):\(line):\(column)" }
}

/// A child's id at one call site.
@usableFromInline
struct SitedID: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline let site: CallSite
  @usableFromInline let id: AnySendableHashable

  @inlinable
  init(site: CallSite, id: AnySendableHashable) {
    self.site = site
    self.id = id
  }

  @usableFromInline
  var description: String { "\(id)" }
}
