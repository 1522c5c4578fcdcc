import Dripper
import DripperTesting
import Testing

/// TCA's TicTacToe root: an enum state of a login flow and a game, changed in a test's assertion by
/// `$0.modify(\.login) { … }`.
private struct TicTacToe: Dripper {
  struct Login: Dripper {
    struct State: Equatable, Sendable {
      var email = ""
      var isLoading = false
    }
    enum Action: Equatable, Sendable {
      case emailChanged(String)
      case submit
    }
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .emailChanged(let email): state.email = email
        case .submit: state.isLoading = true
        }
        return .none
      }
    }
  }

  enum State: Equatable, Sendable, CasePathable {
    case login(Login.State)
    case game(players: [String])
  }
  enum Action: Equatable, Sendable {
    case login(Login.Action)
    case play
  }
  var body: some DripperOf<Self> {
    Drip { state, action in
      if action == .play { state = .game(players: ["x", "o"]) }
      return .none
    }
    .ifCaseLet(State.login, action: Action.login) { Login() }
  }
}

extension CasePath<TicTacToe.State, TicTacToe.Login.State> {
  fileprivate static var login: Self { Self(TicTacToe.State.login) }
}

extension CasePath<TicTacToe.State, [String]> {
  fileprivate static var game: Self { Self(TicTacToe.State.game) }
}

@Suite struct CasePathableTests {
  /// `$0.modify(.login) { … }`, and the case named by itself, `$0.modify(TicTacToe.State.login)`.
  @Test func anEnumStateIsChangedInItsCase() async {
    let station = TestStation(initialState: TicTacToe.State.login(TicTacToe.Login.State())) { TicTacToe() }
    await station.pour(.login(.emailChanged("blob@pointfree.co"))) {
      $0.modify(.login) { $0.email = "blob@pointfree.co" }
    }
    await station.pour(.login(.submit)) {
      $0.modify(TicTacToe.State.login) { $0.isLoading = true }
    }
    #expect(station.state.is(.login))
    #expect(station.state[case: .login]?.email == "blob@pointfree.co")
    await station.pour(.play) { $0 = .game(players: ["x", "o"]) }
    #expect(station.state.is(.game))
    #expect(!station.state.is(.login))
  }

  /// Through the subscript: read, changed in place, and moved to another case; `nil` changes
  /// nothing.
  @Test func theCaseSubscriptReadsAndWrites() {
    var state = TicTacToe.State.login(TicTacToe.Login.State())
    state[case: .login]?.email = "a"
    #expect(state == .login(TicTacToe.Login.State(email: "a")))
    state[case: .game] = ["x"]
    #expect(state == .game(players: ["x"]))
    state[case: .login] = nil
    #expect(state == .game(players: ["x"]))
    #expect(state[case: .login] == nil)
  }

  /// Changing a case the state is not in is a failure that names the state, as TCA's modify is,
  /// and changes nothing.
  @Test func modifyingAnotherCaseFails() async {
    let station = TestStation(initialState: TicTacToe.State.game(players: [])) { TicTacToe() }
    await withExpectedFailure {
      await station.pour(.play) {
        $0.modify(.login) { $0.email = "x" }
        $0 = .game(players: ["x", "o"])
      }
    } matching: {
      mentions("modify found .game(players: []), not the case it was asked to change")($0)
    }
  }
}
