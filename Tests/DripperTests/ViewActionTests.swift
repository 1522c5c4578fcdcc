import Testing

@testable import Dripper

/// A login form whose view sends its own actions, as TCA's `ViewAction` features do.
private struct LoginForm: Dripper {
  struct State: Equatable, Sendable {
    var email = ""
    var isLoggingIn = false
    var loggedIn = false
  }

  enum Action: ViewAction, Equatable {
    case view(View)
    case response(Bool)

    enum View: Equatable, Sendable {
      case emailChanged(String)
      case loginButtonTapped
    }
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .view(.emailChanged(let email)):
        state.email = email
        return .none
      case .view(.loginButtonTapped):
        state.isLoggingIn = true
        return .send(.response(true))
      case .response(let success):
        state.isLoggingIn = false
        state.loggedIn = success
        return .none
      }
    }
  }
}

@Suite struct ViewActionTests {
  /// A view's action is poured without its wrapper, and is the same action as the wrapped one.
  @Test func aViewsActionIsPouredUnwrapped() async {
    let station = Station(initialState: LoginForm.State()) { LoginForm() }
    await station.pour(.emailChanged("blob@pointfree.co")).finish()
    await station.pour(.loginButtonTapped).finish()
    #expect(await station.state == LoginForm.State(email: "blob@pointfree.co", loggedIn: true))
    // The wrapped form and the feature's own actions are poured as before.
    await station.pour(.view(.emailChanged("x"))).finish()
    await station.pour(.response(false)).finish()
    #expect(await station.state == LoginForm.State(email: "x", loggedIn: false))
  }

  /// A view holding an `ObservableStation` pours its actions the same way, and sees the state they
  /// leave.
  @MainActor
  @Test func anObservableStationPoursAViewsAction() async {
    let model = ObservableStation(initialState: LoginForm.State()) { LoginForm() }
    await model.pour(.loginButtonTapped).finish()
    #expect(await model.station.state.loggedIn)
  }
}
