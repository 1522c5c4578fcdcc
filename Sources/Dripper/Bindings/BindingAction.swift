/// An action that sets one field of the state to a value: what a form's text field or toggle
/// sends, without an action case per field.
///
/// ```swift
/// enum Action: BindableAction {
///   case binding(BindingAction<State>)
///   case submit
/// }
///
/// station.pour(.binding(.set(\.query, "milk")))   // or: .set(\.query, "milk")
/// ```
///
/// A ``BindingDripper`` in the feature's body applies it; the feature reacts to the change like to
/// any other, with `onChange(of:_:)` or by matching the action:
///
/// ```swift
/// case .binding(\.query): return .send(.search)
/// ```
///
/// Two binding actions are equal when they set the same key path to equal values, so that a
/// `TestStation` can `receive` one and its failure messages show `.set(\State.query, "milk")`.
/// Unlike TCA, any writable key path of the state can be bound: there is no `@BindingState`
/// to mark fields with, since Dripper has no macros; keep bindings to fields a view owns.
public struct BindingAction<Root>: Sendable, Equatable, CustomStringConvertible {
  /// The field and its value in one object of a type specialized for them: making an action
  /// allocates once, copying one retains once, and an action enum with a binding case stays two
  /// words wide, so its other actions travel as cheaply as before.
  @usableFromInline let field: any FieldAssignment<Root>

  @usableFromInline
  init(_ field: any FieldAssignment<Root>) { self.field = field }

  /// The field the action sets.
  public var keyPath: any PartialKeyPath<Root> & Sendable { field.partialKeyPath }

  /// The value it sets.
  public var value: any Sendable { field.anyValue }

  /// An action that sets the field at `keyPath` to `value`.
  @inlinable
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: any WritableKeyPath<Root, Value> & Sendable, _ value: Value
  ) -> Self {
    Self(Assignment(keyPath: keyPath, value: value))
  }

  /// Sets the field in `root`.
  @inlinable
  public func set(_ root: inout Root) { field.assign(in: &root) }

  /// The value, if the action sets the field at `keyPath`.
  public func value<Value>(at keyPath: any KeyPath<Root, Value> & Sendable) -> Value? {
    (self.keyPath as AnyKeyPath) == (keyPath as AnyKeyPath) ? value as? Value : nil
  }

  /// Whether two actions set the same field to equal values.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.keyPath as AnyKeyPath) == (rhs.keyPath as AnyKeyPath) && lhs.field.holds(rhs.value)
  }

  /// Whether `action` sets the field at `keyPath`, for `switch` patterns:
  /// `case .binding(\.query):`.
  public static func ~= (keyPath: any PartialKeyPath<Root> & Sendable, action: Self) -> Bool {
    (keyPath as AnyKeyPath) == (action.keyPath as AnyKeyPath)
  }

  /// `.set(\State.field, value)`, as failure messages show it.
  public var description: String {
    ".set(\(keyPath as AnyKeyPath), \(Dump.line(value)))"
  }
}

/// One field of `Root` and the value a ``BindingAction`` sets it to.
@usableFromInline
protocol FieldAssignment<Root>: AnyObject, Sendable {
  associatedtype Root

  var partialKeyPath: any PartialKeyPath<Root> & Sendable { get }
  var anyValue: any Sendable { get }
  func assign(in root: inout Root)
  func holds(_ value: any Sendable) -> Bool
}

/// A field of type `Value` and its value.
@usableFromInline
final class Assignment<Root, Value: Equatable & Sendable>: FieldAssignment {
  @usableFromInline let keyPath: any WritableKeyPath<Root, Value> & Sendable
  @usableFromInline let value: Value

  @inlinable
  init(keyPath: any WritableKeyPath<Root, Value> & Sendable, value: Value) {
    self.keyPath = keyPath
    self.value = value
  }

  @usableFromInline
  var partialKeyPath: any PartialKeyPath<Root> & Sendable { keyPath }

  @usableFromInline
  var anyValue: any Sendable { value }

  @inlinable
  func assign(in root: inout Root) { root[keyPath: keyPath] = value }

  @usableFromInline
  func holds(_ other: any Sendable) -> Bool { (other as? Value) == value }
}

extension BindingAction: DumpsAsDescription {}

/// An action enum with a case for ``BindingAction``s, which a ``BindingDripper`` applies.
///
/// ```swift
/// enum Action: BindableAction {
///   case binding(BindingAction<State>)
///   case submit
/// }
/// ```
///
/// The case itself is `binding(_:)`; ``binding``, which TCA's macro writes, is a three-line
/// property:
///
/// ```swift
/// var binding: BindingAction<State>? {
///   switch self { case .binding(let action): action; default: nil }
/// }
/// ```
///
/// Write it as a `switch`: the compiler lends the `BindingDripper` the action's payload then,
/// while the `if case .binding(let action) = self` form copies it, which costs a retain and a
/// release per binding action (a binding pour cost 2.2-2.4x a plain one with it, 1.8-2.0x
/// without, in `swift run -c release dripper-bench --filter composition`).
public protocol BindableAction: Sendable {
  /// The state the bindings set.
  associatedtype State

  /// The action that carries `action`.
  static func binding(_ action: BindingAction<State>) -> Self

  /// The binding this action carries, if it is one.
  var binding: BindingAction<State>? { get }
}

extension BindableAction {
  /// The action that sets the field at `keyPath` to `value`: `.set(\.query, "milk")`.
  @inlinable
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: any WritableKeyPath<State, Value> & Sendable, _ value: Value
  ) -> Self {
    .binding(.set(keyPath, value))
  }
}

/// Applies the ``BindingAction``s of a feature whose action is ``BindableAction``, and ignores
/// every other action.
///
/// Put it first in the body, so that the reducer after it sees the state with the field set. An
/// `onChange(of:_:)` sees the changes of the dripper it modifies: to react to a bound
/// field there, apply it to the `BindingDripper` (`BindingDripper().onChange(of: \.filter) { … }`).
///
///
/// ```swift
/// var body: some DripperOf<Self> {
///   BindingDripper()
///   Drip { state, action in
///     switch action {
///     case .binding(\.query): return .send(.search)
///     case .binding: return .none
///     case .search: …
///     }
///   }
/// }
/// ```
public struct BindingDripper<State: Sendable, Action: BindableAction>: Dripper where Action.State == State {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  /// A dripper that applies bindings.
  @inlinable
  public init() {}

  /// Sets the field a binding action names; does nothing for other actions.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    action.binding?.set(&state)
    return .none
  }
}
