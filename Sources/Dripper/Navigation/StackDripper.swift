extension Dripper {
  /// Runs the elements of a navigation stack: TCA's `forEach(\.path, action: \.path)`.
  ///
  /// ```swift
  /// Drip { state, action in
  ///   switch action {
  ///   case .openTapped(let id):
  ///     state.path.append(.detail(Detail.State(id: id)))
  ///     return .none
  ///   case .path(.element(id: _, action: .detail(.deleted))):
  ///     state.path.removeAll()
  ///     return .none
  ///   case .path: return .none
  ///   }
  /// }
  /// .forEach(\.path, action: .path) { Path() }
  /// ```
  ///
  /// For `.element` actions the element runs first, then the parent. For `.popFrom(id:)` and
  /// `.push(id:state:)` the parent runs first, then the stack changes. Whenever elements leave the
  /// stack — popped by an action, by the parent, or by ``DismissEffect`` from inside an element —
  /// their effects are cancelled and what they would still pour is dropped. In an element's
  /// reductions and effects `@Dependency(\.isPresented)` is `true`, and `@Dependency(\.dismiss)`
  /// pops it. An action for an id that is not on the stack is ignored and reported as a
  /// ``Diagnostic``.
  @inlinable
  public func forEach<ElementState, ElementAction, Element: Dripper>(
    _ toStack: any WritableKeyPath<State, StackState<ElementState>> & Sendable,
    action toStackAction: CasePath<Action, StackAction<ElementState, ElementAction>>,
    @DripperBuilder<ElementState, ElementAction> destination element: () -> Element
  ) -> some Dripper<State, Action> where ElementState == Element.State, ElementAction == Element.Action {
    _StackDripper(parent: self, toStack: toStack, toStackAction: toStackAction, element: element())
  }
}

/// A parent dripper with a navigation stack: see ``Dripper/forEach(_:action:destination:)``.
@usableFromInline
struct _StackDripper<Parent: Dripper, Element: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toStack: any WritableKeyPath<Parent.State, StackState<Element.State>> & Sendable
  @usableFromInline let toStackAction: CasePath<Parent.Action, StackAction<Element.State, Element.Action>>
  @usableFromInline let element: Element

  @inlinable
  init(
    parent: Parent, toStack: any WritableKeyPath<Parent.State, StackState<Element.State>> & Sendable,
    toStackAction: CasePath<Parent.Action, StackAction<Element.State, Element.Action>>, element: Element
  ) {
    self.parent = parent
    self.toStack = toStack
    self.toStackAction = toStackAction
    self.element = element
  }

  /// The reduction a Station runs: over the parent and the element built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    reduction(
      of: _StackDripper<
        _BuiltDripper<Parent.State, Parent.Action>, _BuiltDripper<Element.State, Element.Action>
      >(
        parent: _BuiltDripper(parent), toStack: toStack, toStackAction: toStackAction,
        element: _BuiltDripper(element)))
  }

  /// Runs the element for its actions, then the parent, then pops or pushes; cancels the effects
  /// of every element that left the stack.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    // Two in-place accesses to the stack, never a copy of it: one to run the element and start
    // logging removals, one for a push or a pop and to read the log, which holds only the ids
    // that left, so the cost grows with the elements popped, not with the stack.
    let stackAction = toStackAction.extract(action)
    let elementEffect = reduceElement(stackAction, in: &state[keyPath: toStack], for: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    let stackEffect = pushingOrPopping(stackAction, in: &state[keyPath: toStack], for: action)
    return elementEffect.merge(with: parentEffect).merge(with: stackEffect)
  }

  /// Runs the element an `.element` action names; then starts logging removals.
  @inlinable
  func reduceElement(
    _ stackAction: StackAction<Element.State, Element.Action>?, in stack: inout StackState<Element.State>,
    for action: Parent.Action
  ) -> Effect<Parent.Action> {
    defer { stack._removals.begin() }
    guard case .element(let id, let elementAction) = stackAction else { return .none }
    guard let position = stack.index(id: id) else { return .report(.missingStackElement(id, for: action)) }
    let element = element
    let effect = DependencyValues.presenting {
      element.reduce(into: &stack._elements[position], action: elementAction)
    }
    if effect.isNone { return .none }
    let embed = toStackAction.embed
    return effect.map { StackAction<Element.State, Element.Action>.element(id: id, action: $0) }
      .dismissing(with: .popFrom(id: id))
      .map(embed)
      .namespaced(namespace(id))
  }

  /// Pushes or pops for a `.push` or `.popFrom` action; then cancels the effects of the elements
  /// that left the stack (see ``Effect/cancellingRemovedChildren(_:at:isPresent:present:)``).
  @inlinable
  func pushingOrPopping(
    _ stackAction: StackAction<Element.State, Element.Action>?, in stack: inout StackState<Element.State>,
    for action: Parent.Action
  ) -> Effect<Parent.Action> {
    var effect = Effect<Parent.Action>.none
    switch stackAction {
    case .popFrom(let id):
      if let position = stack.index(id: id) {
        stack.removeSuffix(from: position)
      } else {
        effect = .report(.missingStackElement(id, for: action))
      }
    case .push(let id, let elementState):
      if !stack.push(elementState, id: id) { effect = .report(.duplicateStackElement(id, for: action)) }
    case .element, nil:
      break
    }
    return effect.merge(
      with: .cancellingRemovedChildren(
        stack._removals.end(), at: toStack, isPresent: { stack.index(id: $0) != nil }, present: { stack.ids })
    )
  }

  @usableFromInline
  func namespace(_ id: StackElementID) -> AnySendableHashable { ChildNamespace.element(id, at: toStack) }
}

extension Diagnostic {
  /// An action for a stack element that is not on the stack.
  @usableFromInline
  static func missingStackElement(_ id: StackElementID, for action: Any) -> Diagnostic {
    Diagnostic(
      .notPresented,
      "ignored \(Dump.line(action)): no element of the stack has the id \(id) (it was popped: an "
        + "effect may have outlived it, or the action was poured after it was popped)")
  }

  /// A push with an id the stack has already.
  @usableFromInline
  static func duplicateStackElement(_ id: StackElementID, for action: Any) -> Diagnostic {
    Diagnostic(
      .other, "ignored \(Dump.line(action)): an element of the stack has the id \(id) already")
  }
}
