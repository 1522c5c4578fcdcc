import Synchronization

/// A feature's logic: how its state changes when an action arrives, and which effects then run.
///
/// Conform a type to `Dripper` and describe its logic in ``body`` by composing other drippers, or,
/// for a leaf, implement ``reduce(into:action:)`` directly. Not both: where there is a body, a
/// Station runs the body.
///
/// ```swift
/// struct Counter: Dripper {
///   struct State: Equatable, Sendable { var count = 0 }
///   enum Action: Equatable, Sendable { case increase, decrease }
///
///   var body: some DripperOf<Self> {
///     Drip { state, action in
///       switch action {
///       case .increase: state.count += 1
///       case .decrease: state.count -= 1
///       }
///       return .none
///     }
///   }
/// }
/// ```
///
/// A dripper runs inside a ``Station``'s actor, one action at a time and without suspending, so a
/// reduction never interleaves with another. Work that waits (a request, a timer) belongs in an
/// ``Effect`` returned from the reduction.
///
/// Build ``body`` from the dripper's stored properties alone: a Station evaluates its dripper's body
/// once, when it starts, and its children's bodies too, at any depth (TCA evaluates a child's body
/// at each action that reaches it). Read dependencies in reductions and effects, where they are
/// resolved for each action, not in `body`.
public protocol Dripper<State, Action>: Sendable {
  /// The feature's state: a value type, owned by the actor of the ``Station`` that runs the dripper.
  associatedtype State: Sendable
  /// What can happen to the feature.
  associatedtype Action: Sendable
  /// The type of ``body``; `Never` for drippers that implement ``reduce(into:action:)``.
  associatedtype Body

  /// The feature's logic, composed from other drippers that run in order.
  @DripperBuilder<State, Action>
  var body: Body { get }

  /// Evolves `state` for `action` and returns the effects to run.
  ///
  /// Drippers with a ``body`` get this from it; leaf drippers implement it.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The function a ``Station``'s actor runs for each action: ``reduce(into:action:)``, with the
  /// ``body`` built once.
  ///
  /// Do not implement it: the defaults cover every dripper. It is a requirement, not a helper, so
  /// that the witness is chosen where the dripper's concrete type is known, and the returned
  /// function is compiled for it; a reduction through `any Dripper` would run the composed
  /// drippers (`Scope`, `forEach`, …) as unspecialized generic code, several times slower.
  func _reducer() -> @Sendable (inout State, Action) -> Effect<Action>

  /// The reduction a ``Station`` runs, with the check it runs after each reduction of the whole
  /// feature: both built once (see ``_Reduction``).
  ///
  /// Do not implement it: the defaults cover every dripper.
  func _build() -> _Reduction<State, Action>
}

extension Dripper {
  /// The reduction of a leaf dripper: its own ``reduce(into:action:)``.
  @inlinable
  public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    { [self] state, action in reduce(into: &state, action: action) }
  }

  /// A leaf dripper's reduction, with nothing to check after it.
  @inlinable
  public func _build() -> _Reduction<State, Action> {
    _Reduction(reduce: _reducer(), audit: nil)
  }
}

/// A dripper's reduction as a ``Station`` runs it, built once: plumbing of ``Dripper/_build()``.
///
/// `audit` runs after each reduction of the whole feature, on the state it left, for the composed
/// drippers that own children (`ifLet`, `ifCaseLet`, `forEach`, presentations, stacks): a reducer
/// around one of them may remove its child (set it to `nil`, remove a row, replace a presented
/// child with another), which the dripper itself did not see, and the child's effects are
/// cancelled at the end of that reduction. `nil` for a feature with no such dripper, which then
/// pays nothing.
public struct _Reduction<State: Sendable, Action: Sendable>: Sendable {
  /// Reduces an action.
  public let reduce: @Sendable (inout State, Action) -> Effect<Action>
  /// Cancels the effects of the children that left the state; `nil` when nothing is checked.
  public let audit: _Audit<State, Action>?

  /// A reduction and its check.
  @inlinable
  public init(
    reduce: @escaping @Sendable (inout State, Action) -> Effect<Action>, audit: _Audit<State, Action>?
  ) {
    self.reduce = reduce
    self.audit = audit
  }
}

/// The check a ``Station`` runs after each reduction of its whole feature: plumbing of
/// ``_Reduction``. It returns the cancellations of the children that left the state, and updates
/// what the composed drippers keep in the state to tell (which presentation started effects, which
/// rows a list removed).
public typealias _Audit<State, Action> = @Sendable (inout State, inout _AuditContext) -> Effect<Action>

/// What an audit remembers between reductions, kept by the Station: plumbing of ``_Audit``.
///
/// A presentation, a stack and a list keep what they need in their own state (the presentation
/// whose child started effects, the ids removed). A plain `ifLet` or `ifCaseLet` has nowhere to keep
/// it in an optional or an enum, so the Station keeps the identity of each one's child here, by
/// the number its build was given. The Station's check reaches its feature tree down to lists and
/// stacks; an element's children are checked before and after each of the element's actions, with
/// a context of their own.
public struct _AuditContext: Sendable {
  /// The identity of each plain `ifLet`'s and `ifCaseLet`'s child as the last audit saw it.
  @usableFromInline var identities: [UInt64: AnySendableHashable] = [:]

  /// A context that remembers nothing yet.
  @inlinable
  init() {}

  /// Whether the child `node` remembered is no longer `identity`: returns the identity it was, to
  /// cancel its effects, and remembers the new one.
  @inlinable
  mutating func replaced(_ node: UInt64, by identity: AnySendableHashable?) -> AnySendableHashable? {
    let was = identities[node]
    guard was != identity else { return nil }
    identities[node] = identity
    return was
  }
}

/// The number of a plain `ifLet`'s or `ifCaseLet`'s build, under which a Station remembers its
/// child (see ``_AuditContext``).
@usableFromInline
enum AuditNode {
  private static let count = Atomic<UInt64>(0)

  @usableFromInline
  static func next() -> UInt64 { count.add(1, ordering: .relaxed).newValue }
}

extension Dripper where Body == Never {
  /// A leaf dripper has no body: it implements ``reduce(into:action:)``.
  public var body: Body {
    fatalError("'\(Self.self)' has no body: it implements 'reduce(into:action:)'. Do not read it.")
  }
}

extension Dripper where Body: Dripper, Body.State == State, Body.Action == Action {
  /// Reduces with ``body``.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }

  /// The reduction of ``body``, built once: without it, every reduction rebuilds the body,
  /// allocating the closures of its `Drip`s. The composed drippers in the body build their
  /// children's reductions once, in turn, when this is called.
  @inlinable
  public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    body._reducer()
  }

  /// The reduction of ``body`` with its check, built once.
  @inlinable
  public func _build() -> _Reduction<State, Action> {
    body._build()
  }
}

/// A dripper with the state and action of `D`: the return type of a ``Dripper/body``.
///
/// ```swift
/// var body: some DripperOf<Self> { … }
/// ```
public typealias DripperOf<D: Dripper> = Dripper<D.State, D.Action>
