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
/// A binding of a stored field to a plain value of up to eight bytes (a number, a flag, an enum
/// without payloads) or to a string carries no object and costs what a plain action setting the
/// field does; any other binding (a computed property, a property with observers, an array)
/// holds one object with the key path and the value.
///
/// Two binding actions are equal when they set the same key path to equal values, so that a
/// `TestStation` can `receive` one and its failure messages show `.set(\State.query, "milk")`.
/// Unlike TCA, any writable key path of the state can be bound: there is no `@BindingState`
/// to mark fields with, since Dripper has no macros; keep bindings to fields a view owns.
public struct BindingAction<Root>: Sendable, Equatable, CustomStringConvertible {
  /// The field and its value.
  @usableFromInline let field: Field

  /// How an action names its field and carries its value: three words at most, so that an
  /// action enum with a binding case stays small and its other actions travel as cheaply as
  /// before.
  @usableFromInline
  enum Field: Sendable {
    /// A stored property and a small plain value's bytes, with no object shared between the
    /// thread that pours the action and the one that reduces it (see ``BoundField``).
    case stored(BoundField, UInt64)
    /// A stored property and a string: the string itself, as a plain action would carry it.
    case text(BoundField, String)
    /// Any other key path or value (a computed property, one with observers, an array): the
    /// key path and the value in one object of a type specialized for them.
    case other(any FieldAssignment<Root>)
  }

  @usableFromInline
  init(_ field: Field) { self.field = field }

  /// The field the action sets.
  public var keyPath: any PartialKeyPath<Root> & Sendable {
    switch field {
    // Filed from a key path of this root, so the cast holds.
    case .stored(let bound, _), .text(let bound, _):
      boundFields.keyPath(bound.number) as! any PartialKeyPath<Root> & Sendable
    case .other(let assignment): assignment.partialKeyPath
    }
  }

  /// The value it sets.
  public var value: any Sendable {
    switch field {
    case .stored(let bound, let bits): boundFields.value(bound.number, bits)
    case .text(_, let text): text
    case .other(let assignment): assignment.anyValue
    }
  }

  /// An action that sets the field at `keyPath` to `value`.
  @inlinable
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: any WritableKeyPath<Root, Value> & Sendable, _ value: Value
  ) -> Self {
    Self(.other(Assignment(keyPath: keyPath, value: value)))
  }

  /// An action that sets the field at `keyPath` to `value`, a value of a plain type: a
  /// stored field of up to eight bytes travels with no object.
  @inlinable
  public static func set<Value: Equatable & Sendable & BitwiseCopyable>(
    _ keyPath: any WritableKeyPath<Root, Value> & Sendable, _ value: Value
  ) -> Self {
    if let bound = BoundField(keyPath) { return Self(.stored(bound, BoundField.bits(of: value))) }
    return Self(.other(Assignment(keyPath: keyPath, value: value)))
  }

  /// An action that sets the field at `keyPath` to `value`: a stored text field travels with
  /// its string alone.
  @inlinable
  public static func set(_ keyPath: any WritableKeyPath<Root, String> & Sendable, _ value: String) -> Self {
    if let bound = BoundField(keyPath) { return Self(.text(bound, value)) }
    return Self(.other(Assignment(keyPath: keyPath, value: value)))
  }

  /// Sets the field in `root`.
  @inlinable
  public func set(_ root: inout Root) {
    switch field {
    case .stored(let bound, let bits): bound.write(bits, into: &root)
    case .text(let bound, let text): bound.write(text, into: &root)
    case .other(let assignment): assignment.assign(in: &root)
    }
  }

  /// The value, if the action sets the field at `keyPath`.
  public func value<Value>(at keyPath: any KeyPath<Root, Value> & Sendable) -> Value? {
    keyPath ~= self ? value as? Value : nil
  }

  /// Whether two actions set the same field to equal values.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs.field, rhs.field) {
    case (.stored(let one, let bits), .stored(let other, let otherBits)):
      return one.number == other.number && boundFields.equal(one.number, bits, otherBits)
    case (.text(let one, let text), .text(let other, let otherText)):
      return one.number == other.number && text == otherText
    default: break
    }
    return (lhs.keyPath as AnyKeyPath) == (rhs.keyPath as AnyKeyPath)
      && equalValues(lhs.value, rhs.value) == true
  }

  /// Whether `action` sets the field at `keyPath`, for `switch` patterns:
  /// `case .binding(\.query):`.
  public static func ~= (keyPath: any PartialKeyPath<Root> & Sendable, action: Self) -> Bool {
    switch action.field {
    case .stored(let bound, _), .text(let bound, _):
      // The offset, read from the key path without a lock, rules out most other fields.
      MemoryLayout<Root>.offset(of: keyPath) == Int(bound.offset)
        && boundFields.number(of: keyPath) == bound.number
    case .other(let assignment): (keyPath as AnyKeyPath) == (assignment.partialKeyPath as AnyKeyPath)
    }
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
/// The case itself is `binding(_:)`; ``binding``, which TCA's macro writes, is a line:
///
/// ```swift
/// var binding: BindingAction<State>? { if case .binding(let action) = self { action } else { nil } }
/// ```
///
/// For bindings that hold objects (see ``BindingAction``), write it as a `switch` instead: the
/// compiler lends the `BindingDripper` the action's payload then, while `if case` copies it, a
/// retain and a release more. When every binding was an object, a binding pour cost 2.2-2.4x a
/// plain one with `if case` and 1.8-2.0x with the `switch`, in
/// `swift run -c release dripper-bench --filter composition`:
///
/// ```swift
/// var binding: BindingAction<State>? {
///   switch self { case .binding(let action): action; default: nil }
/// }
/// ```
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

  /// The action that sets the text field at `keyPath` to `value`: `.set(\.query, "milk")`.
  @inlinable
  public static func set(_ keyPath: any WritableKeyPath<State, String> & Sendable, _ value: String) -> Self {
    .binding(.set(keyPath, value))
  }

  /// The action that sets the field at `keyPath` to `value`, a value of a plain type:
  /// `.set(\.isOn, true)`.
  @inlinable
  public static func set<Value: Equatable & Sendable & BitwiseCopyable>(
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
public struct BindingDripper<State: Sendable, Action: Sendable>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  /// Sets the field the binding an action carries names, if it carries one.
  ///
  /// The whole step is one closure, made where the action's type is known: a binding pour costs
  /// 0.92-1.04x a plain one (`dripper-bench --filter composition`), where a closure returning the
  /// binding cost 1.24-1.34x, copying the optional binding out through an indirect return.
  @usableFromInline let apply: @Sendable (inout State, Action) -> Void

  /// A dripper that applies the bindings of a ``BindableAction``.
  @inlinable
  public init() where Action: BindableAction, Action.State == State {
    apply = { state, action in action.binding?.set(&state) }
  }

  /// A dripper that applies the bindings carried by one case of the action: TCA's
  /// `BindingReducer(action: \.view)`, for a feature whose view sends a view-action enum that is
  /// bindable.
  ///
  /// ```swift
  /// enum Action {
  ///   case view(View)
  ///   case response(Int)
  ///   enum View: BindableAction {
  ///     case binding(BindingAction<State>)
  ///     case saveTapped
  ///   }
  /// }
  /// var body: some DripperOf<Self> {
  ///   BindingDripper(action: .view)
  ///   Drip { state, action in … }
  /// }
  /// ```
  @inlinable
  public init<ViewAction: BindableAction>(action: CasePath<Action, ViewAction>)
  where ViewAction.State == State {
    let extract = action.extract
    apply = { state, action in extract(action)?.binding?.set(&state) }
  }

  /// Applies the bindings of the action case a key path names, as TCA names it (see
  /// ``CaseKeyPath``): `BindingDripper(action: \.view)`.
  @inlinable
  public init<ViewAction: BindableAction>(action: CaseKeyPath<Action, ViewAction>)
  where ViewAction.State == State, Action: CasePathable {
    self.init(action: CasePath(action))
  }

  /// Sets the field a binding action names; does nothing for other actions.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    apply(&state, action)
    return .none
  }
}
