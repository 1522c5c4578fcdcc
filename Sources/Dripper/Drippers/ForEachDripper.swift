extension Dripper {
  /// Runs an element's dripper for each element of a list, for the actions that carry its id.
  ///
  /// ```swift
  /// struct Todos: Dripper {
  ///   struct State { var rows: IdentifiedArrayOf<Row.State> = [] }
  ///   enum Action { case rows(IdentifiedAction<Row.State.ID, Row.Action>), clearDone }
  ///
  ///   var body: some DripperOf<Self> {
  ///     Drip { state, action in … }
  ///       .forEach(\.rows, action: .rows) { Row() }
  ///   }
  /// }
  /// station.pour(.rows(.element(id: id, action: .toggle)))
  /// ```
  ///
  /// For element actions, the element runs first, so that the parent sees its result. Removing an
  /// element cancels its effects still running. An action for an id that is not in the list is
  /// ignored and reported as a ``Diagnostic``. Each element's cancellation ids are its own. The
  /// cost of an element action does not grow with the number of elements.
  @inlinable
  public func forEach<ID: Hashable & Sendable, ElementState, ElementAction, Element: Dripper>(
    _ toElements: any WritableKeyPath<State, IdentifiedArray<ID, ElementState>> & Sendable,
    action toElementAction: CasePath<Action, IdentifiedAction<ID, ElementAction>>,
    @DripperBuilder<ElementState, ElementAction> element: () -> Element
  ) -> some Dripper<State, Action>
  where ElementState == Element.State, ElementAction == Element.Action {
    _ForEachDripper(
      parent: self, toElements: toElements, toElementAction: toElementAction, element: element())
  }

  /// Runs `element` on the element an action names, the action's case named as TCA names it (see
  /// ``CaseKeyPath``).
  ///
  /// ```swift
  /// .forEach(\.rows, action: \.rows) { Row() }
  /// ```
  @inlinable
  public func forEach<ID: Hashable & Sendable, ElementState, ElementAction, Element: Dripper>(
    _ toElements: any WritableKeyPath<State, IdentifiedArray<ID, ElementState>> & Sendable,
    action toElementAction: CaseKeyPath<Action, IdentifiedAction<ID, ElementAction>>,
    @DripperBuilder<ElementState, ElementAction> element: () -> Element
  ) -> some Dripper<State, Action>
  where ElementState == Element.State, ElementAction == Element.Action, Action: CasePathable {
    forEach(toElements, action: CasePath(toElementAction), element: element)
  }
}

/// A parent dripper with a dripper per element of a list: see
/// ``Dripper/forEach(_:action:element:)-(_,CasePath<Self.Action,IdentifiedAction<ID,ElementAction>>,_)``.
@usableFromInline
struct _ForEachDripper<Parent: Dripper, ID: Hashable & Sendable, Element: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toElements:
    any WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>> & Sendable
  @usableFromInline let toElementAction: CasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>
  @usableFromInline let element: Element
  /// The element's check, run before and after each of its actions (see
  /// ``reducingChecked(_:audit:_:)``); `nil` outside a Station's build, or for an element without
  /// children.
  @usableFromInline let elementAudit: _Audit<Element.State, Element.Action>?

  @inlinable
  init(
    parent: Parent,
    toElements: any WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>> & Sendable,
    toElementAction: CasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>, element: Element,
    elementAudit: _Audit<Element.State, Element.Action>? = nil
  ) {
    self.parent = parent
    self.toElements = toElements
    self.toElementAction = toElementAction
    self.element = element
    self.elementAudit = elementAudit
  }

  /// The reduction a Station runs: over the parent and the element built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the parent and the element built once; the
  /// parent's check, then the list's removals since the last look (a reducer around this one may
  /// have removed rows).
  @inlinable
  public func _build() -> _Reduction<Parent.State, Parent.Action> {
    let (builtParent, parentAudit) = _BuiltDripper.building(parent)
    let (builtElement, elementAudit) = _BuiltDripper.building(element)
    let built = _ForEachDripper<
      _BuiltDripper<Parent.State, Parent.Action>, ID, _BuiltDripper<Element.State, Element.Action>
    >(
      parent: builtParent, toElements: toElements, toElementAction: toElementAction, element: builtElement,
      elementAudit: elementAudit)
    let audit: _Audit<Parent.State, Parent.Action> = { state, _ in
      built.cancellingRemoved(in: &state[keyPath: built.toElements])
    }
    return reduction(of: built, audit: mergedAudits(parentAudit, audit))
  }

  /// Runs the element's dripper for an element action, then the parent; cancels the effects of
  /// elements removed since the list was last looked at (by this reduction, or by a reducer around
  /// this one before it).
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    // Two in-place accesses to the list per action, never a copy of it: one to run the element, one
    // after the parent to read the log of removals, which holds only the ids removed (by this
    // reduction, or by a reducer before this one), so the cost grows with the elements removed,
    // not with the list.
    let elementEffect = reduceElement(in: &state[keyPath: toElements], for: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    let cancellations = cancellingRemoved(in: &state[keyPath: toElements])
    return elementEffect.merge(with: parentEffect).merge(with: cancellations)
  }

  @inlinable
  func reduceElement(
    in elements: inout IdentifiedArray<ID, Element.State>, for action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard case .element(let id, let elementAction) = toElementAction.extract(action) else { return .none }
    guard let position = elements.index(id: id) else {
      return .report(
        Diagnostic(
          .missingChild,
          "ignored \(tidyDescription(of: action)): no element of \(toElements as AnyKeyPath) has the id \(id) (an effect may "
            + "have outlived its element, or the action was poured after it was removed)"))
    }
    let effect =
      if let elementAudit {
        reducingChecked(&elements[position], audit: elementAudit) {
          element.reduce(into: &$0, action: elementAction)
        }
      } else {
        element.reduce(into: &elements[position], action: elementAction)
      }
    if effect.isNone { return .none }
    let embed = toElementAction.embed
    return effect.map { embed(.element(id: id, action: $0)) }.namespaced(namespace(id))
  }

  /// What cancels the effects of the elements removed since the list was last looked at (see
  /// ``ChildCollection/cancellingRemoved(at:)``).
  @inlinable
  func cancellingRemoved(in elements: inout IdentifiedArray<ID, Element.State>) -> Effect<Parent.Action> {
    elements.cancellingRemoved(at: toElements)
  }

  @usableFromInline
  func namespace(_ id: ID) -> AnySendableHashable { ChildNamespace.element(id, at: toElements) }
}
