import Synchronization

/// The state of a presented child feature, optional: a sheet, an alert, a detail screen.
///
/// A property wrapper, as in TCA before its `@Presents` macro: the parent keeps the child's
/// optional state, and the wrapper counts presentations, so that the child's effects belong to the
/// presentation that started them.
///
/// ```swift
/// struct State: Equatable, Sendable {
///   @PresentationState var editor: Editor.State?
/// }
/// enum Action: Sendable {
///   case editTapped
///   case editor(PresentationAction<Editor.Action>)
/// }
///
/// Drip { state, action in … state.editor = Editor.State(); … }
///   .ifLet(\.$editor, action: .editor) { Editor() }
/// ```
///
/// The parent presents by setting the state and dismisses by pouring `.editor(.dismiss)`, or the
/// child dismisses itself with `@Dependency(\.dismiss)`. Either way its effects are cancelled.
///
/// Identity decides a presentation, as in TCA: each time the state goes from `nil` to a value, or
/// to a value of another identity, is a new presentation, and the child's effects of the one
/// before are cancelled. The identity of an `Identifiable` state is its `id`; of an enum (a
/// destination), its case and, when the case's value is `Identifiable`, that value's `id`. Replacing
/// a presented value with one of the same identity keeps the presentation and its effects.
///
/// ```swift
/// state.destination = .edit(Editor.State(id: 1))
/// state.destination = .edit(Editor.State(id: 1, title: "x"))  // the same presentation
/// state.destination = .alert(.deleteConfirmation)             // a new one: the editor's effects end
/// ```
///
/// Equality, dumps and test diffs see only the optional state.
@propertyWrapper
public struct PresentationState<State: Sendable>: Sendable {
  @usableFromInline var state: State?
  /// Which presentation this is: a new number each time the state goes from `nil` to a value, or
  /// to a value of another identity.
  @usableFromInline var presentation: UInt64
  /// The presentation whose child started effects that may still run, until they are cancelled:
  /// what tells a presentation dripper, or the Station's check after a reduction, that a
  /// presentation with effects ended, whoever ended it (TCA keeps its `presentedID` for this).
  @usableFromInline var presentationWithEffects: UInt64?

  /// State presented from the start, or not.
  public init(wrappedValue: State?) {
    state = wrappedValue
    presentation = wrappedValue == nil ? 0 : Self.nextPresentation()
  }

  /// The child's state, or `nil` when nothing is presented.
  @inlinable
  public var wrappedValue: State? {
    get { state }
    set {
      if let newValue, !isPresenting(sameAs: newValue) { presentation = Self.nextPresentation() }
      state = newValue
    }
    _modify {
      // The identity before: `nil` when nothing was presented.
      let before: AnyHashable?? = state.map(PresentationIdentity.of)
      defer {
        if let after = state, before == nil || PresentationIdentity.of(after) != before! {
          presentation = Self.nextPresentation()
        }
      }
      yield &state
    }
  }

  /// Whether `newValue` continues the presentation under way: something is presented, with the
  /// same identity.
  @inlinable
  func isPresenting(sameAs newValue: State) -> Bool {
    guard let state else { return false }
    return PresentationIdentity.of(state) == PresentationIdentity.of(newValue)
  }

  /// The wrapper itself, for ``Dripper/ifLet(_:action:then:)-(_,CasePath<Self.Action,PresentationAction<ChildAction>>,_)``: `\.$editor`.
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }

  /// The presentation whose child started effects, if it has ended since (nothing is presented, or
  /// another presentation is): its effects are to be cancelled, and it is forgotten.
  @inlinable
  mutating func endedPresentationWithEffects() -> UInt64? {
    guard let live = presentationWithEffects, state == nil || presentation != live else { return nil }
    presentationWithEffects = nil
    return live
  }

  /// A number no other presentation in this process has: effects are keyed by it.
  @usableFromInline
  static func nextPresentation() -> UInt64 {
    presentations.add(1, ordering: .relaxed).newValue
  }
}

/// The presentations counted so far, in this process.
private let presentations = Atomic<UInt64>(0)

/// What tells one presented child from another (see ``PresentationState``): the `id` of an
/// `Identifiable` state; the case of an enum, with the `id` of the case's value when it is
/// `Identifiable`; nothing for any other state, whose replacements all continue one presentation.
@usableFromInline
enum PresentationIdentity {
  @usableFromInline
  static func of(_ state: Any) -> AnyHashable? {
    if let identifiable = state as? any Identifiable { return id(of: identifiable) }
    guard let payload = EnumCase.of(state) else { return nil }
    guard let payload = payload else { return AnyHashable("\(state)") }
    let label = payload.label ?? ""
    if let identifiable = payload.value as? any Identifiable {
      return AnyHashable([AnyHashable(label), id(of: identifiable)])
    }
    return AnyHashable(label)
  }

  private static func id(of value: some Identifiable) -> AnyHashable { AnyHashable(value.id) }
}

/// The case an enum value is in, through reflection, for the few places that must tell cases apart
/// without a case path (a presentation's identity, whether it is ephemeral). Whether a type is an
/// enum is learnt once per type, so that a struct pays a table lookup rather than a mirror.
enum EnumCase {
  private static let isEnum = Lock<[ObjectIdentifier: Bool]>([:])

  /// `nil` for a value that is not an enum; for an enum, its case's payload with the case's name as
  /// its label, or `.some(nil)` for a case without payload.
  static func of(_ value: Any) -> Mirror.Child?? {
    let type = ObjectIdentifier(Swift.type(of: value))
    if isEnum.withLock({ $0[type] }) == false { return nil }
    let mirror = Mirror(reflecting: value)
    let enumerated = mirror.displayStyle == .enum
    isEnum.withLock { $0[type] = enumerated }
    guard enumerated else { return nil }
    return .some(mirror.children.first)
  }
}

extension PresentationState: Equatable where State: Equatable {
  /// Whether both present equal states, or neither presents one.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.state == rhs.state }
}

extension PresentationState: CustomReflectable {
  /// The optional state alone: dumps and test diffs show no presentation count.
  public var customMirror: Mirror {
    Mirror(reflecting: state as Any)
  }
}

/// The actions of a presented child: its own, and its dismissal.
///
/// ```swift
/// case editor(PresentationAction<Editor.Action>)
/// …
/// station.pour(.editor(.presented(.save)))
/// station.pour(.editor(.dismiss))
/// ```
public enum PresentationAction<Action: Sendable>: Sendable {
  /// An action of the presented child.
  case presented(Action)
  /// Ends the presentation: the parent sees it, then the child's state becomes `nil` and its
  /// effects are cancelled.
  case dismiss
}

extension PresentationAction: Equatable where Action: Equatable {}

/// Encodable as its case and the child's action, so that a feature's actions can be written to a
/// journal (see ``Dripper/recording(to:hashing:encode:)``) with a `Codable` encoder.
extension PresentationAction: Encodable where Action: Encodable {}

/// Decodable from what ``PresentationAction``'s `Encodable` conformance writes.
extension PresentationAction: Decodable where Action: Decodable {}
