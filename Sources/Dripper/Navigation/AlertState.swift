import Synchronization

/// Text shown by an alert or a confirmation dialog: TCA's `TextState`, reduced to what a terminal,
/// a test and a view need — the string.
///
/// ```swift
/// let title: TextState = "Delete this meeting?"
/// ```
public struct TextState: Equatable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// The text.
  public var string: String

  /// Text made of `string`.
  public init(_ string: String) {
    self.string = string
  }

  /// Text written as a literal.
  public init(stringLiteral string: String) {
    self.init(string)
  }

  /// The text itself.
  public var description: String { string }
}

/// A button of an alert or a confirmation dialog: its label, its role, and the action it sends
/// when tapped, if any.
///
/// ```swift
/// ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
/// ButtonState(role: .cancel) { TextState("Cancel") }
/// ```
public struct ButtonState<Action: Sendable>: Sendable, Identifiable {
  /// What a button does beside sending its action: how a view draws it.
  public typealias Role = ButtonStateRole

  /// The button's place among its siblings: its position, given when the buttons are listed.
  public var id: Int
  /// The button's role, if it has one.
  public var role: Role?
  /// The action the button sends when tapped; `nil` for a button that only dismisses.
  public var action: Action?
  /// The button's label.
  public var label: TextState

  /// A button with a label made by `label`.
  public init(role: Role? = nil, action: Action? = nil, label: () -> TextState) {
    self.init(role: role, action: action, label: label())
  }

  /// A button labelled `label`.
  public init(role: Role? = nil, action: Action? = nil, label: TextState) {
    self.id = 0
    self.role = role
    self.action = action
    self.label = label
  }

  /// The button with its action turned into another, as a parent turns a child's: `nil` stays
  /// `nil`.
  public func map<NewAction>(_ transform: (Action) -> NewAction) -> ButtonState<NewAction> {
    var button = ButtonState<NewAction>(role: role, action: action.map(transform), label: label)
    button.id = id
    return button
  }
}

extension ButtonState: Equatable where Action: Equatable {
  /// Whether both have the same label, role and action (their positions aside).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.label == rhs.label && lhs.role == rhs.role && lhs.action == rhs.action
  }
}

extension ButtonState: Hashable where Action: Hashable {
  /// Hashes the label, role and action.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(label)
    hasher.combine(role)
    hasher.combine(action)
  }
}

/// What a button of an alert or a dialog does beside sending its action: how a view draws it.
public enum ButtonStateRole: Equatable, Hashable, Sendable {
  /// Dismisses without doing anything.
  case cancel
  /// Destroys something: a view draws it in red.
  case destructive
}

/// Lists the buttons of an alert or a dialog, as in TCA: one ``ButtonState`` a line, with `if`
/// and `for` where needed.
@resultBuilder
public enum ButtonStateBuilder<Action: Sendable> {
  /// The buttons, in order.
  public static func buildBlock(_ components: [ButtonState<Action>]...) -> [ButtonState<Action>] {
    components.flatMap { $0 }
  }

  /// One button.
  public static func buildExpression(_ button: ButtonState<Action>) -> [ButtonState<Action>] { [button] }

  /// Buttons listed by an `if` without `else`.
  public static func buildOptional(_ component: [ButtonState<Action>]?) -> [ButtonState<Action>] {
    component ?? []
  }

  /// The buttons of an `if`'s first branch.
  public static func buildEither(first component: [ButtonState<Action>]) -> [ButtonState<Action>] {
    component
  }

  /// The buttons of an `if`'s second branch.
  public static func buildEither(second component: [ButtonState<Action>]) -> [ButtonState<Action>] {
    component
  }

  /// The buttons of a `for` loop.
  public static func buildArray(_ components: [[ButtonState<Action>]]) -> [ButtonState<Action>] {
    components.flatMap { $0 }
  }
}

/// An alert as a value: a title, a message and buttons that carry actions. Presented through
/// ``PresentationState`` with ``Dripper/ifLet(_:action:)-(_,CasePath<Self.Action,PresentationAction<ChildAction>>)``, it dismisses itself once a button's
/// action has been handled, as TCA's ephemeral presentations do; a test asserts it like any state.
///
/// ```swift
/// struct State: Equatable, Sendable {
///   @PresentationState var alert: AlertState<Action.Alert>?
/// }
/// enum Action: Sendable {
///   case deleteTapped
///   case alert(PresentationAction<Alert>)
///   enum Alert: Equatable, Sendable { case confirmDeletion }
/// }
///
/// case .deleteTapped:
///   state.alert = AlertState {
///     TextState("Delete this meeting?")
///   } actions: {
///     ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
///     ButtonState(role: .cancel) { TextState("Cancel") }
///   }
/// ```
///
/// Each alert made is another alert: setting a new one while one is shown (answering a button with
/// another alert) is a new presentation, as in TCA. Equality and dumps ignore which alert it is.
public struct AlertState<Action: Sendable>: Sendable, Identifiable, _EphemeralState {
  /// A number no other alert or dialog made in this process has: what tells a new alert from the
  /// one it replaces. Equality and dumps ignore it.
  public let id: UInt64
  /// The title.
  public var title: TextState
  /// The message under the title, if any.
  public var message: TextState?
  /// The buttons, in order; an alert with none shows one that dismisses it.
  public var buttons: [ButtonState<Action>]

  /// An alert titled `title`, with `buttons` and an optional `message`.
  public init(
    title: () -> TextState, @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.init(title: title(), message: message?(), buttons: actions())
  }

  /// An alert of these parts.
  public init(title: TextState, message: TextState? = nil, buttons: [ButtonState<Action>] = []) {
    self.id = EphemeralID.next()
    self.title = title
    self.message = message
    self.buttons = buttons.enumerated().map { position, button in
      var button = button
      button.id = position
      return button
    }
  }

  /// The alert with its buttons' actions turned into others.
  public func map<NewAction>(_ transform: (Action) -> NewAction) -> AlertState<NewAction> {
    AlertState<NewAction>(title: title, message: message, buttons: buttons.map { $0.map(transform) })
  }
}

extension AlertState: Equatable where Action: Equatable {
  /// Whether both show the same title, message and buttons, whichever alert each is.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.message == rhs.message && lhs.buttons == rhs.buttons
  }
}

extension AlertState: Hashable where Action: Hashable {
  /// Hashes what equality compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

extension AlertState: CustomReflectable {
  /// The title, message and buttons: dumps and test diffs show no id.
  public var customMirror: Mirror {
    Mirror(
      self, children: ["title": title, "message": message as Any, "buttons": buttons], displayStyle: .struct)
  }
}

/// A confirmation dialog (an action sheet) as a value: a title, whether to show it, a message and
/// buttons that carry actions. It dismisses itself once a button's action has been handled, as
/// ``AlertState`` does.
///
/// ```swift
/// state.dialog = ConfirmationDialogState(titleVisibility: .visible) {
///   TextState("Share")
/// } actions: {
///   ButtonState(action: .copyLink) { TextState("Copy link") }
///   ButtonState(role: .cancel) { TextState("Cancel") }
/// }
/// ```
public struct ConfirmationDialogState<Action: Sendable>: Sendable, Identifiable, _EphemeralState {
  /// Whether a view shows the title.
  public typealias Visibility = ConfirmationDialogStateTitleVisibility

  /// A number no other alert or dialog made in this process has: what tells a new dialog from the
  /// one it replaces. Equality and dumps ignore it.
  public let id: UInt64
  /// Whether a view shows the title.
  public var titleVisibility: Visibility
  /// The title.
  public var title: TextState
  /// The message under the title, if any.
  public var message: TextState?
  /// The buttons, in order.
  public var buttons: [ButtonState<Action>]

  /// A dialog titled `title`, with `buttons` and an optional `message`.
  public init(
    titleVisibility: Visibility = .automatic, title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.init(titleVisibility: titleVisibility, title: title(), message: message?(), buttons: actions())
  }

  /// A dialog of these parts.
  public init(
    titleVisibility: Visibility = .automatic, title: TextState, message: TextState? = nil,
    buttons: [ButtonState<Action>] = []
  ) {
    self.id = EphemeralID.next()
    self.titleVisibility = titleVisibility
    self.title = title
    self.message = message
    self.buttons = AlertState(title: title, buttons: buttons).buttons
  }

  /// The dialog with its buttons' actions turned into others.
  public func map<NewAction>(_ transform: (Action) -> NewAction) -> ConfirmationDialogState<NewAction> {
    ConfirmationDialogState<NewAction>(
      titleVisibility: titleVisibility, title: title, message: message,
      buttons: buttons.map { $0.map(transform) })
  }
}

/// Whether a view shows the title of a ``ConfirmationDialogState``.
public enum ConfirmationDialogStateTitleVisibility: Equatable, Hashable, Sendable {
  /// As the platform chooses.
  case automatic
  /// Shown.
  case visible
  /// Hidden.
  case hidden
}

extension ConfirmationDialogState: Equatable where Action: Equatable {
  /// Whether both show the same title, visibility, message and buttons, whichever dialog each is.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.titleVisibility == rhs.titleVisibility && lhs.title == rhs.title && lhs.message == rhs.message
      && lhs.buttons == rhs.buttons
  }
}

extension ConfirmationDialogState: Hashable where Action: Hashable {
  /// Hashes what equality compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(titleVisibility)
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

extension ConfirmationDialogState: CustomReflectable {
  /// The title, its visibility, the message and buttons: dumps and test diffs show no id.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "titleVisibility": titleVisibility, "title": title, "message": message as Any, "buttons": buttons,
      ],
      displayStyle: .struct)
  }
}

/// The numbers given to alerts and dialogs as they are made (see ``AlertState/id``).
enum EphemeralID {
  private static let count = Atomic<UInt64>(0)

  static func next() -> UInt64 { count.add(1, ordering: .relaxed).newValue }
}

/// State that is presented only until one of its actions is handled — an alert, a confirmation
/// dialog: its presentation dismisses itself after the parent has seen the action. Plumbing of
/// ``AlertState`` and ``ConfirmationDialogState``; an enum destination whose presented case holds
/// such a state is dismissed the same way.
public protocol _EphemeralState: Sendable {}

extension PresentationState {
  /// Whether what is presented dismisses itself once an action of its has been handled: an alert,
  /// a dialog, or an enum destination in a case that holds one.
  @usableFromInline
  var isEphemeral: Bool {
    guard let state else { return false }
    if state is any _EphemeralState { return true }
    guard let payload = EnumCase.of(state), let payload else { return false }
    return payload.value is any _EphemeralState
  }
}
