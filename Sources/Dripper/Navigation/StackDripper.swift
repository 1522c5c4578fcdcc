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

  /// Runs `destination` on the screen of the stack an action names, the action's case named as TCA
  /// names it (see ``CaseKeyPath``).
  ///
  /// ```swift
  /// .forEach(\.path, action: \.path) { Path() }
  /// ```
  @inlinable
  public func forEach<ElementState, ElementAction, Element: Dripper>(
    _ toStack: any WritableKeyPath<State, StackState<ElementState>> & Sendable,
    action toStackAction: CaseKeyPath<Action, StackAction<ElementState, ElementAction>>,
    @DripperBuilder<ElementState, ElementAction> destination element: () -> Element
  ) -> some Dripper<State, Action>
  where ElementState == Element.State, ElementAction == Element.Action, Action: CasePathable {
    forEach(toStack, action: CasePath(toStackAction), destination: element)
  }
}

/// A parent dripper with a navigation stack: see ``Dripper/forEach(_:action:destination:)-(_,CasePath<Self.Action,StackAction<ElementState,ElementAction>>,_)``.
@usableFromInline
struct _StackDripper<Parent: Dripper, Element: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toStack: any WritableKeyPath<Parent.State, StackState<Element.State>> & Sendable
  @usableFromInline let toStackAction: CasePath<Parent.Action, StackAction<Element.State, Element.Action>>
  @usableFromInline let element: Element
  /// The element's check, run before and after each of its actions (see
  /// ``reducingChecked(_:audit:_:)``); `nil` outside a Station's build, or for an element without
  /// children.
  @usableFromInline let elementAudit: _Audit<Element.State, Element.Action>?

  @inlinable
  init(
    parent: Parent, toStack: any WritableKeyPath<Parent.State, StackState<Element.State>> & Sendable,
    toStackAction: CasePath<Parent.Action, StackAction<Element.State, Element.Action>>, element: Element,
    elementAudit: _Audit<Element.State, Element.Action>? = nil
  ) {
    self.parent = parent
    self.toStack = toStack
    self.toStackAction = toStackAction
    self.element = element
    self.elementAudit = elementAudit
  }

  /// The reduction a Station runs: over the parent and the element built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the parent and the element built once; the
  /// parent's check, then the elements popped since the stack was last looked at (a reducer around
  /// this one may have truncated the path).
  @inlinable
  public func _build() -> _Reduction<Parent.State, Parent.Action> {
    let (builtParent, parentAudit) = _BuiltDripper.building(parent)
    let (builtElement, elementAudit) = _BuiltDripper.building(element)
    let built = _StackDripper<
      _BuiltDripper<Parent.State, Parent.Action>, _BuiltDripper<Element.State, Element.Action>
    >(
      parent: builtParent, toStack: toStack, toStackAction: toStackAction, element: builtElement,
      elementAudit: elementAudit)
    let audit: _Audit<Parent.State, Parent.Action> = { state, _ in
      state[keyPath: built.toStack].cancellingRemoved(at: built.toStack)
    }
    return reduction(of: built, audit: mergedAudits(parentAudit, audit))
  }

  /// Runs the element for its actions, then the parent, then pops or pushes; cancels the effects
  /// of every element that left the stack since it was last looked at.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    // Two in-place accesses to the stack, never a copy of it: one to run the element, one for a
    // push or a pop and to read the log of removals, which holds only the ids that left (in this
    // reduction, or by a reducer before this one), so the cost grows with the elements popped, not
    // with the stack.
    let stackAction = toStackAction.extract(action)
    var popFromWasOnStack = false
    let elementEffect = reduceElement(
      stackAction, in: &state[keyPath: toStack], for: action, popFromIsOnStack: &popFromWasOnStack)
    let parentEffect = parent.reduce(into: &state, action: action)
    let stackEffect = pushingOrPopping(
      stackAction, in: &state[keyPath: toStack], for: action, popFromWasOnStack: popFromWasOnStack)
    return elementEffect.merge(with: parentEffect).merge(with: stackEffect)
  }

  /// Runs the element an `.element` action names; for a `.popFrom`, tells whether its element is on
  /// the stack before the parent runs.
  @inlinable
  func reduceElement(
    _ stackAction: StackAction<Element.State, Element.Action>?, in stack: inout StackState<Element.State>,
    for action: Parent.Action, popFromIsOnStack: inout Bool
  ) -> Effect<Parent.Action> {
    switch stackAction {
    case .popFrom(let id):
      popFromIsOnStack = stack.index(id: id) != nil
      return .none
    case .element(let id, let elementAction):
      guard let position = stack.index(id: id) else { return .report(.missingStackElement(id, for: action)) }
      let (element, elementAudit) = (element, elementAudit)
      let effect = DependencyValues.presenting {
        reducingChecked(&stack._elements[position], audit: elementAudit) {
          element.reduce(into: &$0, action: elementAction)
        }
      }
      if effect.isNone { return .none }
      let embed = toStackAction.embed
      return effect.map { StackAction<Element.State, Element.Action>.element(id: id, action: $0) }
        .dismissing(with: .popFrom(id: id))
        .map(embed)
        .namespaced(namespace(id))
    case .push, nil:
      return .none
    }
  }

  /// Pushes or pops for a `.push` or `.popFrom` action; then cancels the effects of the elements
  /// that left the stack (see ``ChildCollection/cancellingRemoved(at:)``).
  ///
  /// A `.popFrom` is judged against the stack as it was before the parent ran: a parent that popped
  /// the element itself (to the root, say) gets no diagnostic.
  @inlinable
  func pushingOrPopping(
    _ stackAction: StackAction<Element.State, Element.Action>?, in stack: inout StackState<Element.State>,
    for action: Parent.Action, popFromWasOnStack: Bool
  ) -> Effect<Parent.Action> {
    var effect = Effect<Parent.Action>.none
    switch stackAction {
    case .popFrom(let id):
      if let position = stack.index(id: id) {
        stack.removeSuffix(from: position)
      } else if !popFromWasOnStack {
        effect = .report(.missingStackElement(id, for: action))
      }
    case .push(let id, let elementState):
      if !stack.push(elementState, id: id) { effect = .report(.duplicateStackElement(id, for: action)) }
    case .element, nil:
      break
    }
    return effect.merge(with: stack.cancellingRemoved(at: toStack))
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
