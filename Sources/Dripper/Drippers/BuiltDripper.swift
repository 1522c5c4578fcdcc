/// A child whose reduction is built once: what a composed dripper runs in place of each of its
/// children, in the reduction a Station runs (see ``Dripper/_reducer()``).
///
/// A child with a ``Dripper/body``, run through its own `reduce(into:action:)`, would evaluate its
/// body at every action: at every level of a tree of features, the closures of its `Drip`s and
/// its combinators made again, and in a generic feature each key path of its body instantiated
/// again by the runtime. Through a Station, five levels of `Scope` over a generic feature cost
/// 2,020-2,062 ns a pour (`dripper-bench --filter composition`, four runs) before composed
/// drippers held their children this way, and 123-125 ns after (126-130 for children with
/// properties, against 2,039-2,085).
///
/// The price is a call through a closure for each child, even one with no body to build (a
/// `Drip`, `EmptyDripper`): in the same runs, an element action of `forEach` over such a child
/// cost 74-75 ns instead of 58-60, and of a stack 92-94 instead of 71-73. A variant that ran such
/// children directly, deciding once per child, was slower everywhere (forEach 86-91 ns, five
/// Scopes 167 ns), and was not kept.
@usableFromInline
struct _BuiltDripper<State: Sendable, Action: Sendable>: Dripper {
  /// A leaf: it implements `reduce`.
  @usableFromInline typealias Body = Never

  @usableFromInline let reduction: @Sendable (inout State, Action) -> Effect<Action>

  /// Builds the reduction of `base`, and of its children in turn, once.
  ///
  /// A feature that contains itself (a row whose children are rows, through `forEach`, `ifLet` or
  /// a stack) would build itself for ever: a child of a type being built already is built when its
  /// first action comes instead, once (see ``LazyReduction``).
  @inlinable
  init<Base: Dripper<State, Action>>(_ base: Base) {
    reduction = ReductionBuilding.build(base).reduce
  }

  /// A child built from its reduction.
  @inlinable
  init(reduction: @escaping @Sendable (inout State, Action) -> Effect<Action>) {
    self.reduction = reduction
  }

  /// `base` built once, and its check after each reduction of the whole feature (see
  /// ``_Reduction``), kept apart: the child is copied on the way of every action, the check only
  /// while the Station's check is composed.
  @inlinable
  static func building<Base: Dripper<State, Action>>(_ base: Base) -> (Self, _Audit<State, Action>?) {
    let built = ReductionBuilding.build(base)
    return (Self(reduction: built.reduce), built.audit)
  }

  @inlinable
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduction(&state, action)
  }

  @inlinable
  func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    reduction
  }

  @inlinable
  func _build() -> _Reduction<State, Action> {
    _Reduction(reduce: reduction, audit: nil)
  }
}

extension Dripper {
  /// The reduction of `built`, a copy of this dripper that holds its children built (see
  /// ``_BuiltDripper``): what a composed dripper's ``_reducer()`` returns.
  @inlinable
  func reduction(of built: some Dripper<State, Action>) -> @Sendable (inout State, Action) -> Effect<Action> {
    { built.reduce(into: &$0, action: $1) }
  }

  /// The reduction of `built` and the check `audit`: what a composed dripper's ``_build()``
  /// returns.
  @inlinable
  func reduction(of built: some Dripper<State, Action>, audit: _Audit<State, Action>?) -> _Reduction<
    State, Action
  > {
    _Reduction(reduce: { built.reduce(into: &$0, action: $1) }, audit: audit)
  }
}

/// Runs `reduce` on a child's state between two runs of its check `audit`, if it has one: how an
/// element of a list or a stack is checked, as the Station's check does not reach into elements.
/// The first run catches what left since (a presentation the parent closed) and learns which
/// children are there; the second catches what a reducer in the element's body, around one of its
/// children, removed in this action.
@inlinable
func reducingChecked<State: Sendable, Action: Sendable>(
  _ state: inout State, audit: _Audit<State, Action>?, _ reduce: (inout State) -> Effect<Action>
) -> Effect<Action> {
  guard let audit else { return reduce(&state) }
  var context = _AuditContext()
  let before = audit(&state, &context)
  let effect = reduce(&state)
  return before.merge(with: effect).merge(with: audit(&state, &context))
}

/// Checks run one after another, their effects merged; `nil` when there is none to run.
@inlinable
func mergedAudits<State: Sendable, Action: Sendable>(
  _ first: _Audit<State, Action>?, _ second: _Audit<State, Action>?
)
  -> _Audit<State, Action>?
{
  guard let first else { return second }
  guard let second else { return first }
  return { state, context in first(&state, &context).merge(with: second(&state, &context)) }
}

/// The dripper types whose reductions are being built on this thread, outermost first: how a
/// feature that contains itself is noticed while it is built.
@usableFromInline
enum ReductionBuilding {
  @TaskLocal static var types: [ObjectIdentifier] = []

  /// The reduction of `base`: built now, unless a dripper of its type is being built around this
  /// call, in which case it is built at its first action.
  ///
  /// Inlinable, so that `base._reducer()` is called where `Base` is known: through unspecialized
  /// generic code, the witness built the composed drippers unspecialized, and five levels of
  /// `Scope` through a Station cost 1,390-1,533 ns a pour instead of 146-195
  /// (`dripper-bench --filter composition`).
  @inlinable
  static func build<Base: Dripper>(_ base: Base) -> _Reduction<Base.State, Base.Action> {
    let type = ObjectIdentifier(Base.self)
    // A level built at its first action checks nothing after reductions: its children are
    // cancelled by the level above, or when its own next action comes.
    guard let building = startBuilding(type) else {
      return _Reduction(reduce: LazyReduction(base).reduction, audit: nil)
    }
    return whileBuilding(building) { base._build() }
  }

  /// Runs `body` with `building` as the types being built.
  @usableFromInline
  static func whileBuilding<Result>(_ building: [ObjectIdentifier], _ body: () -> Result) -> Result {
    $types.withValue(building, operation: body)
  }

  /// The types being built with `type` added, or `nil` if it is being built already.
  @usableFromInline
  static func startBuilding(_ type: ObjectIdentifier) -> [ObjectIdentifier]? {
    let building = types
    return building.contains(type) ? nil : building + [type]
  }
}

/// The reduction of a dripper that contains itself, built at its first action and kept.
///
/// A lock per action: only a feature that contains itself pays it, at each level of itself.
@usableFromInline
final class LazyReduction<Base: Dripper>: Sendable {
  @usableFromInline let base: Base
  @usableFromInline let stored = Lock<(@Sendable (inout Base.State, Base.Action) -> Effect<Base.Action>)?>(
    nil)

  @inlinable
  init(_ base: Base) { self.base = base }

  /// Runs the reduction, building it the first time.
  @inlinable
  var reduction: @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    { [self] state, action in built()(&state, action) }
  }

  @inlinable
  func built() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    if let reduction = stored.withLock({ $0 }) { return reduction }
    // Built outside the lock: building may reach another level of the same feature, whose own
    // lazy reduction is another object. Two threads may both build; the first one kept wins.
    let reduction = ReductionBuilding.build(base).reduce
    return stored.withLock { stored in
      if let stored { return stored }
      stored = reduction
      return reduction
    }
  }
}
