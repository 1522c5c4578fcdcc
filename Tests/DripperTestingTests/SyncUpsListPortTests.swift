import Dripper
import DripperTesting
import Foundation
import Testing

// TCA's SyncUps example (Examples/SyncUps): the SyncUpForm and SyncUpsList screens, written again
// as Dripper features, and their four tests ported assertion for assertion. Both states make ids
// in their initializers (a form always has an attendee to type into), so the tests' initial states
// are built under the test's `uuid`, as TCA's TestStore builds them (issue 40). The list reads
// every sync-up from the `\.syncUpList` dependency, TCA's `@Shared(.syncUps)` (see
// SyncUpDetailPortTests), and offsets are `[Int]`, TCA's `IndexSet`.

/// The edit form of a sync-up, as the example's `SyncUpForm`.
struct SyncUpForm: Dripper {
  struct State: Equatable, Sendable {
    var focus: Field? = .title
    var syncUp: SyncUp

    enum Field: Hashable, Sendable {
      case attendee(UUID)
      case title
    }

    init(focus: Field? = .title, syncUp: SyncUp) {
      self.focus = focus
      self.syncUp = syncUp
      if self.syncUp.attendees.isEmpty {
        @Dependency(\.uuid) var uuid
        self.syncUp.attendees.append(SyncUp.Attendee(id: uuid()))
      }
    }
  }

  enum Action: BindableAction, Equatable {
    case addAttendeeButtonTapped
    case binding(BindingAction<State>)
    case deleteAttendees(atOffsets: [Int])

    var binding: BindingAction<State>? {
      if case .binding(let action) = self { action } else { nil }
    }
  }

  @Dependency(\.uuid) var uuid

  var body: some DripperOf<Self> {
    BindingDripper()
    Drip { state, action in
      switch action {
      case .addAttendeeButtonTapped:
        let attendee = SyncUp.Attendee(id: uuid())
        state.syncUp.attendees.append(attendee)
        state.focus = .attendee(attendee.id)
        return .none

      case .binding:
        return .none

      case .deleteAttendees(let offsets):
        for offset in offsets.sorted(by: >) { state.syncUp.attendees.remove(at: offset) }
        if state.syncUp.attendees.isEmpty {
          state.syncUp.attendees.append(SyncUp.Attendee(id: uuid()))
        }
        guard let firstIndex = offsets.min() else { return .none }
        let index = min(firstIndex, state.syncUp.attendees.count - 1)
        state.focus = .attendee(state.syncUp.attendees[index].id)
        return .none
      }
    }
  }
}

/// The list of sync-ups, as the example's `SyncUpsList`: a sheet adds one.
struct SyncUpsList: Dripper {
  struct Destination: Dripper {
    enum State: Equatable, Sendable {
      case add(SyncUpForm.State)
    }
    enum Action: Equatable, Sendable {
      case add(SyncUpForm.Action)
    }
    var body: some DripperOf<Self> {
      Scope(state: State.add, action: Action.add) { SyncUpForm() }
    }
  }

  struct State: Equatable, Sendable {
    @PresentationState var destination: Destination.State?
    @Shared var syncUps: IdentifiedArrayOf<SyncUp>

    init(destination: Destination.State? = nil) {
      self.destination = destination
      @Dependency(\.syncUpList) var list
      _syncUps = Shared(projectedValue: list)
    }
  }

  enum Action: Sendable {
    case addSyncUpButtonTapped
    case confirmAddSyncUpButtonTapped
    case destination(PresentationAction<Destination.Action>)
    case dismissAddSyncUpButtonTapped
    case onDelete([Int])
  }

  @Dependency(\.uuid) var uuid

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .addSyncUpButtonTapped:
        state.destination = .add(SyncUpForm.State(syncUp: SyncUp(id: uuid())))
        return .none

      case .confirmAddSyncUpButtonTapped:
        guard case .add(let editState)? = state.destination else { return .none }
        var syncUp = editState.syncUp
        syncUp.attendees.removeAll { attendee in attendee.name.allSatisfy(\.isWhitespace) }
        if syncUp.attendees.isEmpty {
          syncUp.attendees.append(editState.syncUp.attendees.first ?? SyncUp.Attendee(id: uuid()))
        }
        state.destination = nil
        state.$syncUps.withLock { _ = $0.append(syncUp) }
        return .none

      case .destination:
        return .none

      case .dismissAddSyncUpButtonTapped:
        state.destination = nil
        return .none

      case .onDelete(let offsets):
        state.$syncUps.withLock { syncUps in
          for offset in offsets.sorted(by: >) { syncUps.remove(at: offset) }
        }
        return .none
      }
    }
    .ifLet(\.$destination, action: .destination) { Destination() }
  }
}

extension CasePath<SyncUpsList.Action, PresentationAction<SyncUpsList.Destination.Action>> {
  static var destination: Self { Self(SyncUpsList.Action.destination) }
}

/// TCA's `Attendee.ID()`: an id `.incrementing` never makes.
private func someAttendee(_ n: UInt64) -> SyncUp.Attendee { SyncUp.Attendee(id: UUID(500 + n)) }

@Suite struct SyncUpFormTests {
  @Test func addAttendee() async {
    let store = TestStation(
      initialState: SyncUpForm.State(
        syncUp: SyncUp(id: UUID(109), attendees: [], title: "Engineering"))
    ) {
      SyncUpForm()
    } withDependencies: {
      $0.uuid = .incrementing
    }

    await store.assert {
      $0.syncUp.attendees = [SyncUp.Attendee(id: UUID(0))]
    }

    await store.pour(.addAttendeeButtonTapped) {
      $0.focus = .attendee(UUID(1))
      $0.syncUp.attendees = [SyncUp.Attendee(id: UUID(0)), SyncUp.Attendee(id: UUID(1))]
    }
  }

  @Test func focusAfterRemovingAttendee() async {
    let store = TestStation(
      initialState: SyncUpForm.State(
        syncUp: SyncUp(
          id: UUID(109), attendees: (0..<4).map(someAttendee), title: "Engineering"))
    ) {
      SyncUpForm()
    } withDependencies: {
      $0.uuid = .incrementing
    }

    await store.pour(.deleteAttendees(atOffsets: [0])) {
      $0.focus = .attendee($0.syncUp.attendees[1].id)
      $0.syncUp.attendees = [$0.syncUp.attendees[1], $0.syncUp.attendees[2], $0.syncUp.attendees[3]]
    }
    await store.pour(.deleteAttendees(atOffsets: [1])) {
      $0.focus = .attendee($0.syncUp.attendees[2].id)
      $0.syncUp.attendees = [$0.syncUp.attendees[0], $0.syncUp.attendees[2]]
    }
    await store.pour(.deleteAttendees(atOffsets: [1])) {
      $0.focus = .attendee($0.syncUp.attendees[0].id)
      $0.syncUp.attendees = [$0.syncUp.attendees[0]]
    }
    await store.pour(.deleteAttendees(atOffsets: [0])) {
      $0.focus = .attendee(UUID(0))
      $0.syncUp.attendees = [SyncUp.Attendee(id: UUID(0))]
    }
  }
}

@Suite struct SyncUpsListTests {
  @Test func add() async {
    let store = TestStation(initialState: SyncUpsList.State()) {
      SyncUpsList()
    } withDependencies: {
      $0.uuid = .incrementing
    }

    var syncUp = SyncUp(id: UUID(0), attendees: [SyncUp.Attendee(id: UUID(1))])
    await store.pour(.addSyncUpButtonTapped) {
      $0.destination = .add(SyncUpForm.State(syncUp: syncUp))
    }

    syncUp.title = "Engineering"
    await store.pour(.destination(.presented(.add(.binding(.set(\.syncUp, syncUp)))))) {
      $0.destination = .add(SyncUpForm.State(syncUp: syncUp))
    }

    await store.pour(.confirmAddSyncUpButtonTapped) {
      $0.destination = nil
      $0.$syncUps.withLock { $0 = [syncUp] }
    }
  }

  @Test func addValidatedAttendees() async {
    @Dependency(\.uuid) var uuid

    let store = TestStation(
      initialState: SyncUpsList.State(
        destination: .add(
          SyncUpForm.State(
            syncUp: SyncUp(
              id: UUID(uuidString: "deadbeef-dead-beef-dead-beefdeadbeef")!,
              attendees: [
                SyncUp.Attendee(id: uuid(), name: ""),
                SyncUp.Attendee(id: uuid(), name: "    "),
              ],
              title: "Design"
            )
          )
        )
      )
    ) {
      SyncUpsList()
    } withDependencies: {
      $0.uuid = .incrementing
    }

    await store.pour(.confirmAddSyncUpButtonTapped) {
      $0.destination = nil
      $0.$syncUps.withLock {
        $0 = [
          SyncUp(
            id: UUID(uuidString: "deadbeef-dead-beef-dead-beefdeadbeef")!,
            attendees: [SyncUp.Attendee(id: UUID(0))],
            title: "Design"
          )
        ]
      }
    }
  }
}
