import Dripper
import DripperTesting
import Foundation
import Testing

// TCA's SyncUps example (Examples/SyncUps): the SyncUpDetail screen, written again as a Dripper
// feature, and its seven tests ported assertion for assertion. The screen holds its sync-up as a
// shared value, presents an alert or an edit form as one destination, opens the settings from an
// effect (openSettings), and deletes its sync-up from the shared list, then dismisses itself
// (delete: the root feature dismissing itself, issue 40).
//
// Where the port differs: TCA reads the list through a global `@Shared(.syncUps)` key; Dripper has
// no global keys, so the list is a dependency holding a `Shared` (`\.syncUpList`). A meeting is
// deleted by its offsets as `[Int]`, as the port keeps Foundation's `IndexSet` out. The delete test
// asserts the list's change in the step that makes it, where TCA's checks it after the test: an
// exhaustive TestStation fails on a shared value an action changed and the test did not assert,
// whether the state holds it or not.

extension SyncUp.Meeting {
  /// A past meeting of the mock sync-up.
  static let mock = SyncUp.Meeting(
    id: UUID(400), date: Date(timeIntervalSince1970: 1_234_000_000),
    transcript: "Lorem ipsum dolor sit amet")
}

/// Opens the system's settings: the example's `openSettings` dependency.
struct OpenSettings: Sendable {
  var open: @Sendable () async -> Void
  func callAsFunction() async { await open() }
}

enum OpenSettingsKey: DependencyKey {
  static let liveValue = OpenSettings {}
  static let testValue = OpenSettings(open: unimplemented("openSettings", placeholder: ()))
}

/// Every sync-up: the example's `@Shared(.syncUps)`.
enum SyncUpListKey: DependencyKey {
  static var liveValue: Shared<IdentifiedArrayOf<SyncUp>> { Shared(value: []) }
  static var testValue: Shared<IdentifiedArrayOf<SyncUp>> { Shared(value: []) }
}

extension DependencyValues {
  var openSettings: OpenSettings {
    get { self[OpenSettingsKey.self] }
    set { self[OpenSettingsKey.self] = newValue }
  }
  var syncUpList: Shared<IdentifiedArrayOf<SyncUp>> {
    get { self[SyncUpListKey.self] }
    set { self[SyncUpListKey.self] = newValue }
  }
}

struct SyncUpDetail: Dripper {
  struct Destination: Dripper {
    enum State: Equatable, Sendable {
      case alert(AlertState<Alert>)
      case edit(SyncUpForm.State)
    }
    enum Action: Equatable, Sendable {
      case alert(Alert)
      case edit(SyncUpForm.Action)
    }
    enum Alert: Equatable, Sendable {
      case confirmDeletion
      case continueWithoutRecording
      case openSettings
    }
    var body: some DripperOf<Self> {
      Scope(state: State.edit, action: Action.edit) { SyncUpForm() }
    }
  }

  struct State: Equatable, Sendable {
    @PresentationState var destination: Destination.State?
    @Shared var syncUp: SyncUp
  }

  enum Action: Sendable {
    case cancelEditButtonTapped
    case delegate(Delegate)
    case deleteButtonTapped
    case deleteMeetings(atOffsets: [Int])
    case destination(PresentationAction<Destination.Action>)
    case doneEditingButtonTapped
    case editButtonTapped
    case startMeetingButtonTapped

    enum Delegate: Sendable {
      case startMeeting(Shared<SyncUp>)
    }
  }

  @Dependency(\.dismiss) var dismiss
  @Dependency(\.openSettings) var openSettings
  @Dependency(\.speechClient) var speechClient
  @Dependency(\.syncUpList) var syncUps

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .cancelEditButtonTapped:
        state.destination = nil
        return .none

      case .delegate:
        return .none

      case .deleteButtonTapped:
        state.destination = .alert(.deleteSyncUp)
        return .none

      case .deleteMeetings(let offsets):
        state.$syncUp.withLock { syncUp in
          for offset in offsets.sorted(by: >) { syncUp.meetings.remove(at: offset) }
        }
        return .none

      case .destination(.presented(.alert(let alertAction))):
        switch alertAction {
        case .confirmDeletion:
          let id = state.syncUp.id
          syncUps.withLock { _ = $0.remove(id: id) }
          return .run { _ in await dismiss() }
        case .continueWithoutRecording:
          return .send(.delegate(.startMeeting(state.$syncUp)))
        case .openSettings:
          return .run { _ in await openSettings() }
        }

      case .destination:
        return .none

      case .doneEditingButtonTapped:
        guard case .edit(let editState)? = state.destination else { return .none }
        state.$syncUp.withLock { $0 = editState.syncUp }
        state.destination = nil
        return .none

      case .editButtonTapped:
        state.destination = .edit(SyncUpForm.State(syncUp: state.syncUp))
        return .none

      case .startMeetingButtonTapped:
        switch speechClient.authorizationStatus() {
        case .notDetermined, .authorized:
          return .send(.delegate(.startMeeting(state.$syncUp)))
        case .denied:
          state.destination = .alert(.speechRecognitionDenied)
          return .none
        case .restricted:
          state.destination = .alert(.speechRecognitionRestricted)
          return .none
        }
      }
    }
    .ifLet(\.$destination, action: .destination) { Destination() }
  }
}

extension AlertState where Action == SyncUpDetail.Destination.Alert {
  static let deleteSyncUp = Self {
    TextState("Delete?")
  } actions: {
    ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Yes") }
    ButtonState(role: .cancel) { TextState("Nevermind") }
  } message: {
    TextState("Are you sure you want to delete this meeting?")
  }

  static let speechRecognitionDenied = Self {
    TextState("Speech recognition denied")
  } actions: {
    ButtonState(action: .continueWithoutRecording) { TextState("Continue without recording") }
    ButtonState(action: .openSettings) { TextState("Open settings") }
    ButtonState(role: .cancel) { TextState("Cancel") }
  } message: {
    TextState(
      "You previously denied speech recognition and so your meeting will not be recorded. You can "
        + "enable speech recognition in settings, or you can continue without recording.")
  }

  static let speechRecognitionRestricted = Self {
    TextState("Speech recognition restricted")
  } actions: {
    ButtonState(action: .continueWithoutRecording) { TextState("Continue without recording") }
    ButtonState(role: .cancel) { TextState("Cancel") }
  } message: {
    TextState("Your device does not support speech recognition and so your meeting will not be recorded.")
  }
}

extension CasePath<SyncUpDetail.Action, PresentationAction<SyncUpDetail.Destination.Action>> {
  static var destination: Self { Self(SyncUpDetail.Action.destination) }
}
/// TCA's `\.delegate.startMeeting`.
extension CasePath<SyncUpDetail.Action, Shared<SyncUp>> {
  static var startMeeting: Self {
    Self(
      { .delegate(.startMeeting($0)) },
      extract: { if case .delegate(.startMeeting(let s)) = $0 { s } else { nil } })
  }
}

/// A detail screen of the mock sync-up, whose speech recognition is `authorization`.
private func detail(
  _ syncUp: Shared<SyncUp> = Shared(value: .mock),
  destination: SyncUpDetail.Destination.State? = nil,
  authorization: SpeechClient.Authorization? = nil,
  _ dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in }
) -> TestStation<SyncUpDetail.State, SyncUpDetail.Action> {
  TestStation(initialState: SyncUpDetail.State(destination: destination, syncUp: syncUp)) {
    SyncUpDetail()
  } withDependencies: {
    if let authorization { $0.speechClient.authorizationStatus = { authorization } }
    dependencies(&$0)
  }
}

@Suite struct SyncUpDetailTests {
  @Test func speechRestricted() async {
    let store = detail(authorization: .restricted)
    await store.pour(.startMeetingButtonTapped) {
      $0.destination = .alert(.speechRecognitionRestricted)
    }
  }

  @Test func speechDenied() async {
    let store = detail(authorization: .denied)
    await store.pour(.startMeetingButtonTapped) {
      $0.destination = .alert(.speechRecognitionDenied)
    }
  }

  @Test func openSettings() async {
    let settingsOpened = Flag()
    let store = detail(destination: .alert(.speechRecognitionDenied), authorization: .denied) {
      $0.openSettings = OpenSettings { settingsOpened.set() }
    }
    await store.pour(.destination(.presented(.alert(.openSettings)))) {
      $0.destination = nil
    }
    #expect(settingsOpened.isSet)
  }

  @Test func continueWithoutRecording() async {
    let store = detail(destination: .alert(.speechRecognitionDenied), authorization: .denied)
    await store.pour(.destination(.presented(.alert(.continueWithoutRecording)))) {
      $0.destination = nil
    }
    await store.receive(.startMeeting)
  }

  @Test func speechAuthorized() async {
    let store = detail(authorization: .authorized)
    await store.pour(.startMeetingButtonTapped)
    await store.receive(.startMeeting)
  }

  @Test func edit() async {
    var syncUp = SyncUp.mock
    let store = detail(Shared(value: syncUp)) { $0.uuid = .incrementing }

    await store.pour(.editButtonTapped) {
      $0.destination = .edit(SyncUpForm.State(syncUp: syncUp))
    }

    syncUp.title = "Blob's Meeting"
    await store.pour(.destination(.presented(.edit(.binding(.set(\.syncUp, syncUp)))))) {
      $0.destination = .edit(SyncUpForm.State(syncUp: syncUp))
    }

    await store.pour(.doneEditingButtonTapped) {
      $0.destination = nil
      $0.$syncUp.withLock { $0.title = "Blob's Meeting" }
    }
  }

  @Test func delete() async {
    let syncUp = SyncUp.mock
    let syncUps = Shared(value: IdentifiedArrayOf<SyncUp>([syncUp]))
    let sharedSyncUp = syncUps[id: syncUp.id]!

    let store = detail(sharedSyncUp) { $0.syncUpList = syncUps }

    await store.pour(.deleteButtonTapped) {
      $0.destination = .alert(.deleteSyncUp)
    }
    await store.pour(.destination(.presented(.alert(.confirmDeletion)))) {
      $0.destination = nil
      // TCA's test checks the list in a `defer` ("TODO: Can this exhaustively be caught?"); a
      // TestStation compares every shared value an action changed, held in the state or not.
      syncUps.withLock { $0 = [] }
    }
    #expect(store.isDismissed)
    #expect(syncUps.wrappedValue.isEmpty)
  }
}
