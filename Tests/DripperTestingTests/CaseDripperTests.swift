import Dripper
import DripperTesting
import Testing

// Issue 60: TCA's `@Reducer enum DeskDestination`, presented and stacked without a trailing closure.
// The enum is written here by hand, as `@Dripper` (DripperMacros) writes it.

/// A counter, one of the destinations.
private struct DeskTally: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable { case add(Int) }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount): state.count += amount
      }
      return .none
    }
  }
}

/// A note, the other destination.
private struct DeskNote: Dripper {
  struct State: Equatable, Sendable { var text = "" }
  enum Action: Equatable, Sendable { case write(String) }
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .write(let text): state.text = text
      }
      return .none
    }
  }
}

/// What `@Dripper enum DeskDestination { case tally(DeskTally); case note(DeskNote) }` writes.
private enum DeskDestination: CaseDripper {
  enum State: CaseDripperState, Equatable {
    typealias Features = DeskDestination
    case tally(DeskTally.State)
    case note(DeskNote.State)
  }
  enum Action: Equatable, Sendable {
    case tally(DeskTally.Action)
    case note(DeskNote.Action)
  }
  static var body: some Dripper<State, Action> {
    Scope(state: State.tally, action: Action.tally) { DeskTally() }
    Scope(state: State.note, action: Action.note) { DeskNote() }
  }
}

/// A parent that presents a destination and stacks them.
private struct Desk: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var destination: DeskDestination.State?
    var path: StackState<DeskDestination.State> = []
  }
  enum Action: Equatable, Sendable {
    case destination(PresentationAction<DeskDestination.Action>)
    case path(StackAction<DeskDestination.State, DeskDestination.Action>)
  }
  var body: some DripperOf<Self> {
    EmptyDripper()
      .ifLet(\.$destination, action: CasePath(Action.destination))
      .forEach(\.path, action: CasePath(Action.path))
  }
}

@Suite struct CaseDripperTests {
  /// The feature of the destination's case runs: with the alert's `ifLet` (no logic) taken
  /// instead, as it was before, the state would not change and the pour would fail.
  @Test func aPresentedEnumOfFeaturesRunsTheFeatureOfItsCase() async {
    let station = TestStation(initialState: Desk.State(destination: .tally(DeskTally.State()))) { Desk() }
    await station.pour(.destination(.presented(.tally(.add(2))))) {
      $0.destination = .tally(DeskTally.State(count: 2))
    }
    await station.pour(.destination(.dismiss)) { $0.destination = nil }
  }

  /// Each screen of a stack of an enum of features runs the feature of its case.
  @Test func aStackOfAnEnumOfFeaturesRunsEachScreensFeature() async {
    let station = TestStation(
      initialState: Desk.State(path: [.note(DeskNote.State()), .tally(DeskTally.State())])
    ) {
      Desk()
    }
    await station.pour(.path(.element(id: 0, action: .note(.write("milk"))))) {
      $0.path[id: 0] = .note(DeskNote.State(text: "milk"))
    }
    await station.pour(.path(.element(id: 1, action: .tally(.add(3))))) {
      $0.path[id: 1] = .tally(DeskTally.State(count: 3))
    }
  }
}
