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
/// Each time the state goes from `nil` to a value is a new presentation; replacing a presented
/// value with another keeps the presentation (dismiss first to start a new one).
///
/// Equality, dumps and test diffs see only the optional state.
@propertyWrapper
public struct PresentationState<State: Sendable>: Sendable {
  @usableFromInline var state: State?
  /// Which presentation this is: a new number each time the state goes from `nil` to a value.
  @usableFromInline var presentation: UInt64

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
      if state == nil, newValue != nil { presentation = Self.nextPresentation() }
      state = newValue
    }
    _modify {
      let wasAbsent = state == nil
      defer { if wasAbsent, state != nil { presentation = Self.nextPresentation() } }
      yield &state
    }
  }

  /// The wrapper itself, for ``Dripper/ifLet(_:action:then:)-(_,CasePath<Self.Action,PresentationAction<ChildAction>>,_)``: `\.$editor`.
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }

  /// A number no other presentation in this process has: effects are keyed by it.
  @usableFromInline
  static func nextPresentation() -> UInt64 {
    presentations.add(1, ordering: .relaxed).newValue
  }
}

/// The presentations counted so far, in this process.
private let presentations = Atomic<UInt64>(0)

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
