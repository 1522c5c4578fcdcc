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
  @inlinable
  init(_ base: some Dripper<State, Action>) {
    reduction = base._reducer()
  }

  @inlinable
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduction(&state, action)
  }

  @inlinable
  func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    reduction
  }
}

extension Dripper {
  /// The reduction of `built`, a copy of this dripper that holds its children built (see
  /// ``_BuiltDripper``): what a composed dripper's ``_reducer()`` returns.
  @inlinable
  func reduction(of built: some Dripper<State, Action>) -> @Sendable (inout State, Action) -> Effect<Action> {
    { built.reduce(into: &$0, action: $1) }
  }
}
