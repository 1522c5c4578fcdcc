import Dripper
import DripperTesting
import Testing

// TCA's Animations case study (Examples/CaseStudies, GettingStarted) and its Navigation sheet
// case study, which presents the animations screen in a sheet: a rainbow that pours one color a
// second on the clock, a reset behind an alert that cancels it, and a sheet dismissed while the
// rainbow runs. Written again as Dripper features; the three tests are ported assertion for
// assertion. Where the port differs: colors are an enum of the test's own, sends carry no
// animation, and the parts of the screen no test touches (the circle's center and scale) are left
// out.

/// The animations screen: a circle whose color a rainbow cycles through.
struct Animations: Dripper {
  enum Color: Equatable, Sendable {
    case black, blue, green, orange, pink, purple, red, yellow
  }

  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    var circleColor = Color.black
  }

  enum Action: Equatable, Sendable {
    case alert(PresentationAction<Alert>)
    case rainbowButtonTapped
    case resetButtonTapped
    case setColor(Color)

    enum Alert: Equatable, Sendable {
      case resetConfirmationButtonTapped
    }
  }

  @Dependency(\.clock) var clock

  private struct RainbowID: Hashable, Sendable {}

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .alert(.presented(.resetConfirmationButtonTapped)):
        state = State()
        return .cancel(id: RainbowID())

      case .alert:
        return .none

      case .rainbowButtonTapped:
        return .run { [clock] pour in
          for color in [Color.red, .blue, .green, .orange, .pink, .purple, .yellow, .black] {
            await pour(.setColor(color))
            try await clock.sleep(for: .seconds(1))
          }
        }
        .cancellable(id: RainbowID())

      case .resetButtonTapped:
        state.alert = .reset
        return .none

      case .setColor(let color):
        state.circleColor = color
        return .none
      }
    }
    .ifLet(\.$alert, action: .alert)
  }
}

extension AlertState where Action == Animations.Action.Alert {
  static let reset = Self {
    TextState("Reset state?")
  } actions: {
    ButtonState(role: .destructive, action: .resetConfirmationButtonTapped) { TextState("Reset") }
    ButtonState(role: .cancel) { TextState("Cancel") }
  }
}

extension CasePath<Animations.Action, PresentationAction<Animations.Action.Alert>> {
  static var alert: Self { Self(Animations.Action.alert) }
}

/// The sheet case study: a screen that presents the animations screen in a sheet.
struct SheetDemo: Dripper {
  struct Destination: Dripper {
    enum State: Equatable, Sendable {
      case animations(Animations.State)
    }
    enum Action: Equatable, Sendable {
      case animations(Animations.Action)
    }
    var body: some DripperOf<Self> {
      EmptyDripper().ifCaseLet(.animations, action: .animations) { Animations() }
    }
  }

  struct State: Equatable, Sendable {
    @PresentationState var destination: Destination.State?
  }

  enum Action: Equatable, Sendable {
    case animationsButtonTapped
    case destination(PresentationAction<Destination.Action>)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .animationsButtonTapped:
        state.destination = .animations(Animations.State())
        return .none
      case .destination:
        return .none
      }
    }
    .ifLet(\.$destination, action: .destination) { Destination() }
  }
}

extension CasePath<SheetDemo.Destination.State, Animations.State> {
  static var animations: Self { Self(SheetDemo.Destination.State.animations) }
}

extension CasePath<SheetDemo.Destination.Action, Animations.Action> {
  static var animations: Self { Self(SheetDemo.Destination.Action.animations) }
}

extension CasePath<SheetDemo.Action, PresentationAction<SheetDemo.Destination.Action>> {
  static var destination: Self { Self(SheetDemo.Action.destination) }
}

@Suite struct AnimationsTests {
  private func animations(on clock: TestClock) -> TestStation<Animations.State, Animations.Action> {
    TestStation(initialState: Animations.State()) {
      Animations()
    } withDependencies: {
      $0.clock = clock
    }
  }

  @Test func rainbow() async {
    let clock = TestClock()
    let store = animations(on: clock)

    await store.pour(.rainbowButtonTapped)
    await store.receive(.setColor(.red)) {
      $0.circleColor = .red
    }
    for color in [Animations.Color.blue, .green, .orange, .pink, .purple, .yellow, .black] {
      await clock.advance(by: .seconds(1))
      await store.receive(.setColor(color)) {
        $0.circleColor = color
      }
    }

    await clock.run()
  }

  /// The reset cancels the rainbow halfway: the test ends with nothing running.
  @Test func reset() async {
    let clock = TestClock()
    let store = animations(on: clock)

    await store.pour(.rainbowButtonTapped)
    await store.receive(.setColor(.red)) {
      $0.circleColor = .red
    }

    await clock.advance(by: .seconds(1))
    await store.receive(.setColor(.blue)) {
      $0.circleColor = .blue
    }

    await store.pour(.resetButtonTapped) {
      $0.alert = .reset
    }

    await store.pour(.alert(.presented(.resetConfirmationButtonTapped))) {
      $0 = Animations.State()
    }

    await store.finish()
  }
}

@Suite struct NavigationSheetTests {
  /// The sheet is dismissed while its rainbow sleeps between two colors: the rainbow is cancelled
  /// with it, and the test ends with nothing running.
  @Test func basics() async {
    let clock = TestClock()
    let store = TestStation(initialState: SheetDemo.State()) {
      SheetDemo()
    } withDependencies: {
      $0.clock = clock
    }

    await store.pour(.animationsButtonTapped) {
      $0.destination = .animations(Animations.State())
    }
    await store.pour(.destination(.presented(.animations(.rainbowButtonTapped))))
    await store.receive(.destination(.presented(.animations(.setColor(.red))))) {
      $0.destination[case: .animations]?.circleColor = .red
    }

    await clock.advance(by: .seconds(1))
    await store.receive(.destination(.presented(.animations(.setColor(.blue))))) {
      $0.destination[case: .animations]?.circleColor = .blue
    }

    await store.pour(.destination(.dismiss)) {
      $0.destination = nil
    }
  }
}
