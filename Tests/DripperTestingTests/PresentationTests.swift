import Dripper
import DripperTesting
import Testing

/// A presented editor: an effect on the clock, a way to close itself, and a look at whether it is
/// presented.
struct SheetEditor: Dripper {
  struct State: Equatable, Sendable {
    var text = ""
    var isPresented: Bool?
  }
  enum Action: Equatable, Sendable {
    case startTicking
    case tick
    case closeTapped
    case checkPresented
    /// Has an effect send back what `isPresented` was when the effect was made.
    case checkPresentedInEffect
    case presentedInEffect(Bool)
  }

  @Dependency(\.clock) var clock
  @Dependency(\.dismiss) var dismiss
  @Dependency(\.isPresented) var isPresented

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .startTicking:
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.tick)
        }
      case .tick:
        state.text += "."
        return .none
      case .closeTapped:
        return .run { _ in await dismiss() }
      case .checkPresented:
        state.isPresented = isPresented
        return .none
      case .checkPresentedInEffect:
        return .run { pour in await pour(.presentedInEffect(isPresented)) }
      case .presentedInEffect(let presented):
        state.isPresented = presented
        return .none
      }
    }
  }
}

struct SheetHost: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var editor: SheetEditor.State? = nil
    /// The `.dismiss` actions the host saw, each with the editor still there.
    var dismissalsSeen = 0
  }
  enum Action: Equatable, Sendable {
    case editTapped
    case reopenTapped
    case editor(PresentationAction<SheetEditor.Action>)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .editTapped:
        state.editor = SheetEditor.State()
        return .none
      case .reopenTapped:
        state.editor = nil
        state.editor = SheetEditor.State(text: "again")
        return .none
      case .editor(.dismiss):
        if state.editor != nil { state.dismissalsSeen += 1 }
        return .none
      case .editor:
        return .none
      }
    }
    .ifLet(\.$editor, action: .editor) { SheetEditor() }
  }
}

extension CasePath<SheetHost.Action, PresentationAction<SheetEditor.Action>> {
  static var editor: Self { Self(SheetHost.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
}

@Suite struct PresentationTests {
  @Test func dismissingFromTheParentCancelsTheChildsEffects() async {
    let clock = TestClock()
    let station = TestStation(initialState: SheetHost.State()) {
      SheetHost()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.editTapped) { $0.editor = SheetEditor.State() }
    await station.pour(.editor(.presented(.startTicking)))
    await station.pour(.editor(.dismiss)) {
      $0.dismissalsSeen = 1
      $0.editor = nil
    }
    await clock.advance(by: .seconds(1))
    // The tick was cancelled with the presentation: nothing to receive, nothing still running.
    await station.finish()
  }

  @Test func aChildDismissesItselfThroughItsDependency() async {
    let station = TestStation(initialState: SheetHost.State(editor: SheetEditor.State())) { SheetHost() }
    await station.pour(.editor(.presented(.checkPresented))) { $0.editor?.isPresented = true }
    await station.pour(.editor(.presented(.closeTapped)))
    await station.receive(.editor(.dismiss)) {
      $0.dismissalsSeen = 1
      $0.editor = nil
    }
    await station.finish()
  }

  @Test func anEffectOfAnEarlierPresentationNeverReachesALaterOne() async {
    let clock = TestClock()
    let station = TestStation(initialState: SheetHost.State()) {
      SheetHost()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.editTapped) { $0.editor = SheetEditor.State() }
    await station.pour(.editor(.presented(.startTicking)))
    await station.pour(.reopenTapped) { $0.editor = SheetEditor.State(text: "again") }
    await clock.advance(by: .seconds(1))
    await station.finish()
  }

  @Test func outsideAPresentationDismissIsADiagnosticAndIsPresentedIsFalse() async {
    // A TestStation lets the feature under test dismiss itself: this one is given the value a
    // Station's root feature has, which nothing presents.
    let station = TestStation(initialState: SheetEditor.State()) {
      SheetEditor()
    } withDependencies: {
      $0.dismiss = DismissEffect(nil)
    }
    await station.pour(.checkPresented) { $0.isPresented = false }
    await withExpectedFailure {
      await station.pour(.closeTapped)
      await station.finish()
    } matching: {
      mentions("in a feature that is not presented: nothing was dismissed")($0)
    }
  }

  @Test func anActionForAChildNotPresentedIsReported() async {
    let station = TestStation(initialState: SheetHost.State()) { SheetHost() }
    await withExpectedFailure {
      await station.pour(.editor(.presented(.tick)))
    } matching: {
      mentions("no SheetEditor.State is presented in SheetHost.State")($0)
    }
    await station.finish()
  }
}

/// One optional enum for every destination of a screen, each scoped with `ifCaseLet`.
struct Destination: Dripper {
  enum State: Equatable, Sendable {
    case confirm(Confirm.State)
    case sheet(SheetEditor.State)
  }
  enum Action: Equatable, Sendable {
    case confirm(Confirm.Action)
    case sheet(SheetEditor.Action)
  }

  // An enum of features, as TCA's `@Reducer enum Destination`: one line a case (issue 53).
  var body: some DripperOf<Self> {
    Scope(state: State.confirm, action: Action.confirm) { Confirm() }
    Scope(state: State.sheet, action: Action.sheet) { SheetEditor() }
  }
}

/// An alert-like destination: a button that dismisses it.
struct Confirm: Dripper {
  struct State: Equatable, Sendable { var message: String }
  enum Action: Equatable, Sendable { case okTapped }

  @Dependency(\.dismiss) var dismiss

  var body: some DripperOf<Self> {
    Drip { _, _ in .run { _ in await dismiss() } }
  }
}

struct Screen: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var destination: Destination.State? = nil
  }
  enum Action: Equatable, Sendable {
    case deleteTapped
    case editTapped
    case destination(PresentationAction<Destination.Action>)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deleteTapped: state.destination = .confirm(Confirm.State(message: "Delete?"))
      case .editTapped: state.destination = .sheet(SheetEditor.State())
      case .destination: break
      }
      return .none
    }
    .ifLet(
      \.$destination,
      action: CasePath(Action.destination) { if case .destination(let a) = $0 { a } else { nil } }
    ) { Destination() }
  }
}
