import Dripper
import DripperTesting
import Testing

/// A meeting screen as in TCA's SyncUpDetail: an editor and a deletion alert as one destination,
/// and a share dialog of its own.
struct Meeting: Dripper {
  struct State: Equatable, Sendable {
    var title = "Standup"
    var isDeleted = false
    var copied = 0
    @PresentationState var destination: Destination.State?
    @PresentationState var dialog: ConfirmationDialogState<Action.Dialog>?
  }
  enum Action: Equatable, Sendable {
    case deleteTapped
    case editTapped
    case shareTapped
    case destination(PresentationAction<Destination.Action>)
    case dialog(PresentationAction<Dialog>)
    enum Dialog: Equatable, Sendable { case copyLink, askAgain }
  }

  struct Destination: Dripper {
    enum State: Equatable, Sendable {
      case alert(AlertState<Action.Alert>)
      case editor(Editor.State)
    }
    enum Action: Equatable, Sendable {
      case alert(Alert)
      case editor(Editor.Action)
      enum Alert: Equatable, Sendable { case confirmDeletion, deleteLater }
    }
    var body: some DripperOf<Self> {
      EmptyDripper().ifCaseLet(.editor, action: .editor) { Editor() }
    }
  }

  struct Editor: Dripper {
    struct State: Equatable, Sendable { var title = "" }
    enum Action: Equatable, Sendable { case titleChanged(String) }
    var body: some DripperOf<Self> {
      Drip { state, action in
        if case .titleChanged(let title) = action { state.title = title }
        return .none
      }
    }
  }

  static func deletionAlert() -> AlertState<Destination.Action.Alert> {
    AlertState {
      TextState("Delete?")
    } actions: {
      ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Yes") }
      ButtonState(action: .deleteLater) { TextState("Later") }
      ButtonState(role: .cancel) { TextState("Nevermind") }
    } message: {
      TextState("Are you sure you want to delete this meeting?")
    }
  }

  static func shareDialog(again: Bool) -> ConfirmationDialogState<Action.Dialog> {
    ConfirmationDialogState(titleVisibility: .visible) {
      TextState("Share")
    } actions: {
      ButtonState(action: .copyLink) { TextState("Copy link") }
      if again {
        ButtonState(action: .askAgain) { TextState("Ask again") }
      }
      ButtonState(role: .cancel) { TextState("Cancel") }
    }
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deleteTapped:
        state.destination = .alert(Self.deletionAlert())
      case .editTapped:
        state.destination = .editor(Editor.State(title: state.title))
      case .shareTapped:
        state.dialog = Self.shareDialog(again: true)
      case .destination(.presented(.alert(.confirmDeletion))):
        state.isDeleted = true
      case .destination(.presented(.alert(.deleteLater))):
        // Answered with another alert: it stays.
        state.destination = .alert(AlertState(title: "Deleting tomorrow"))
      case .dialog(.presented(.copyLink)):
        state.copied += 1
      case .dialog(.presented(.askAgain)):
        state.dialog = Self.shareDialog(again: false)
      case .destination, .dialog:
        break
      }
      return .none
    }
    .ifLet(\.$destination, action: .destination) { Destination() }
    .ifLet(\.$dialog, action: .dialog)
  }
}

extension CasePath<Meeting.Destination.State, AlertState<Meeting.Destination.Action.Alert>> {
  static var alert: Self {
    Self(Meeting.Destination.State.alert) { if case .alert(let s) = $0 { s } else { nil } }
  }
}
extension CasePath<Meeting.Destination.State, Meeting.Editor.State> {
  static var editor: Self {
    Self(Meeting.Destination.State.editor) { if case .editor(let s) = $0 { s } else { nil } }
  }
}
extension CasePath<Meeting.Destination.Action, Meeting.Editor.Action> {
  static var editor: Self {
    Self(Meeting.Destination.Action.editor) { if case .editor(let a) = $0 { a } else { nil } }
  }
}
extension CasePath<Meeting.Action, PresentationAction<Meeting.Destination.Action>> {
  static var destination: Self {
    Self(Meeting.Action.destination) { if case .destination(let a) = $0 { a } else { nil } }
  }
}
extension CasePath<Meeting.Action, PresentationAction<Meeting.Action.Dialog>> {
  static var dialog: Self { Self(Meeting.Action.dialog) { if case .dialog(let a) = $0 { a } else { nil } } }
}

/// Alerts and dialogs as values, dismissed once their button's action is handled (TCA's ephemeral
/// presentation; SyncUpDetail's delete flow), and assertions inside an enum destination's case.
@Suite struct AlertTests {
  @Test func anAlertsButtonIsHandledThenTheAlertGoes() async {
    let station = TestStation(initialState: Meeting.State()) { Meeting() }
    await station.pour(.deleteTapped) { $0.destination = .alert(Meeting.deletionAlert()) }
    await station.pour(.destination(.presented(.alert(.confirmDeletion)))) {
      $0.isDeleted = true
      $0.destination = nil
    }
    await station.finish()
  }

  @Test func anAlertAnsweredWithAnotherAlertKeepsTheNewOne() async {
    let station = TestStation(initialState: Meeting.State()) { Meeting() }
    await station.pour(.deleteTapped) { $0.destination = .alert(Meeting.deletionAlert()) }
    await station.pour(.destination(.presented(.alert(.deleteLater)))) {
      $0.destination = .alert(AlertState(title: "Deleting tomorrow"))
    }
    await station.pour(.destination(.dismiss)) { $0.destination = nil }
    await station.finish()
  }

  /// The editor in the same destination is not ephemeral: its actions leave it presented, and the
  /// test asserts its change inside the case without rebuilding the case value.
  @Test func anEditorInTheSameDestinationStaysAndIsAssertedInPlace() async {
    let station = TestStation(initialState: Meeting.State()) { Meeting() }
    await station.pour(.editTapped) { $0.destination = .editor(Meeting.Editor.State(title: "Standup")) }
    await station.pour(.destination(.presented(.editor(.titleChanged("Retro"))))) {
      $0.destination[case: .editor]?.title = "Retro"
    }
    #expect(station.state.destination[case: .editor]?.title == "Retro")
    #expect(station.state.destination[case: .alert] == nil)
    await station.finish()
  }

  @Test func aDialogDismissesItselfUnlessItsActionPresentsAnother() async {
    let station = TestStation(initialState: Meeting.State()) { Meeting() }
    await station.pour(.shareTapped) { $0.dialog = Meeting.shareDialog(again: true) }
    #expect(station.state.dialog?.buttons.map(\.label) == ["Copy link", "Ask again", "Cancel"])
    #expect(station.state.dialog?.buttons.map(\.id) == [0, 1, 2])
    await station.pour(.dialog(.presented(.askAgain))) { $0.dialog = Meeting.shareDialog(again: false) }
    await station.pour(.dialog(.presented(.copyLink))) {
      $0.copied = 1
      $0.dialog = nil
    }
    await station.finish()
  }

  @Test func theCaseSubscriptReadsSetsAndClears() {
    var destination: Meeting.Destination.State? = .editor(Meeting.Editor.State(title: "a"))
    destination[case: .alert]?.title = "ignored"
    #expect(destination == .editor(Meeting.Editor.State(title: "a")))
    destination[case: .editor]?.title = "b"
    #expect(destination == .editor(Meeting.Editor.State(title: "b")))
    destination[case: .alert] = nil
    #expect(destination != nil)
    destination[case: .editor] = nil
    #expect(destination == nil)
    destination[case: .alert] = AlertState(title: "x")
    #expect(destination == .alert(AlertState(title: "x")))
    var root = Meeting.Destination.State.editor(Meeting.Editor.State(title: "c"))
    CasePath.editor.modify(&root) { $0.title = "d" }
    #expect(root == .editor(Meeting.Editor.State(title: "d")))
  }

  @Test func buttonsMapTheirActions() {
    let alert = Meeting.deletionAlert().map { Meeting.Destination.Action.alert($0) }
    #expect(alert.buttons.map(\.action) == [.alert(.confirmDeletion), .alert(.deleteLater), nil])
    #expect(alert.buttons.map(\.role) == [.destructive, nil, .cancel])
    #expect(alert.message == "Are you sure you want to delete this meeting?")
  }
}
