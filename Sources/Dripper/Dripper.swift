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
}

extension Dripper {
  /// The reduction of a leaf dripper: its own ``reduce(into:action:)``.
  @inlinable
  public func _reducer() -> @Sendable (inout State, Action) -> Effect<Action> {
    { [self] state, action in reduce(into: &state, action: action) }
  }
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
}

/// A dripper with the state and action of `D`: the return type of a ``Dripper/body``.
///
/// ```swift
/// var body: some DripperOf<Self> { … }
/// ```
public typealias DripperOf<D: Dripper> = Dripper<D.State, D.Action>
