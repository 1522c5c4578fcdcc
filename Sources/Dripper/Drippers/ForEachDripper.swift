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
}

/// A parent dripper with a dripper per element of a list: see
/// ``Dripper/forEach(_:action:element:)``.
@usableFromInline
struct _ForEachDripper<Parent: Dripper, ID: Hashable & Sendable, Element: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let parent: Parent
  @usableFromInline let toElements:
    any WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>> & Sendable
  @usableFromInline let toElementAction: CasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>
  @usableFromInline let element: Element

  @inlinable
  init(
    parent: Parent,
    toElements: any WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>> & Sendable,
    toElementAction: CasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>, element: Element
  ) {
    self.parent = parent
    self.toElements = toElements
    self.toElementAction = toElementAction
    self.element = element
  }

  /// The reduction a Station runs: over the parent and the element built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Parent.State, Parent.Action) -> Effect<Parent.Action> {
    reduction(
      of: _ForEachDripper<
        _BuiltDripper<Parent.State, Parent.Action>, ID, _BuiltDripper<Element.State, Element.Action>
      >(
        parent: _BuiltDripper(parent), toElements: toElements, toElementAction: toElementAction,
        element: _BuiltDripper(element)))
  }

  /// Runs the element's dripper for an element action, then the parent; cancels the effects of
  /// elements the reduction removed.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    // Two in-place accesses to the list per action, never a copy of it: one to run the element and
    // start logging removals, one after the parent to read the log. The log holds only the ids
    // removed, so the cost grows with the elements the parent removes, not with the list.
    let elementEffect = reduceElement(in: &state[keyPath: toElements], for: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    let cancellations = cancellingRemoved(in: &state[keyPath: toElements])
    return elementEffect.merge(with: parentEffect).merge(with: cancellations)
  }

  @inlinable
  func reduceElement(
    in elements: inout IdentifiedArray<ID, Element.State>, for action: Parent.Action
  ) -> Effect<Parent.Action> {
    defer { elements._removals.begin() }
    guard case .element(let id, let elementAction) = toElementAction.extract(action) else { return .none }
    guard let position = elements.index(id: id) else {
      return .report(
        Diagnostic(
          .missingChild,
          "ignored \(action): no element of \(toElements as AnyKeyPath) has the id \(id) (an effect may "
            + "have outlived its element, or the action was poured after it was removed)"))
    }
    let effect = element.reduce(into: &elements[position], action: elementAction)
    if effect.isNone { return .none }
    let embed = toElementAction.embed
    return effect.map { embed(.element(id: id, action: $0)) }.namespaced(namespace(id))
  }

  /// What cancels the effects of the elements the parent removed (see
  /// ``Effect/cancellingRemovedChildren(_:at:isPresent:present:)``).
  @inlinable
  func cancellingRemoved(in elements: inout IdentifiedArray<ID, Element.State>) -> Effect<Parent.Action> {
    .cancellingRemovedChildren(
      elements._removals.end(), at: toElements, isPresent: { elements.contains(id: $0) },
      present: { elements.ids })
  }

  @usableFromInline
  func namespace(_ id: ID) -> AnySendableHashable { ChildNamespace.element(id, at: toElements) }
}
