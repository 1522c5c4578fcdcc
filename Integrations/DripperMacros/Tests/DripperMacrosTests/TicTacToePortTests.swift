import DripperMacros
import DripperTesting
import Foundation
import Testing

// TCA's TicTacToe example (Examples/TicTacToe/tic-tac-toe): a login with a second factor, then a
// new game and the game itself, each a module of its own there. Written again as Dripper features,
// one file, its five test files ported assertion for assertion, with `@CasePathable` and TCA's key
// paths to cases.

// MARK: - AuthenticationClient

private struct AuthenticationResponse: Equatable, Sendable {
  var token: String
  var twoFactorRequired: Bool
}

private enum AuthenticationError: Equatable, LocalizedError, Sendable {
  case invalidUserPassword
  case invalidTwoFactor
  case invalidIntermediateToken

  var errorDescription: String? {
    switch self {
    case .invalidUserPassword:
      return "Unknown user or invalid password."
    case .invalidTwoFactor:
      return "Invalid second factor (try 1234)"
    case .invalidIntermediateToken:
      return "404!! What happened to your token there bud?!?!"
    }
  }
}

@DependencyClient
private struct AuthenticationClient: Sendable {
  var login: @Sendable (_ email: String, _ password: String) async throws -> AuthenticationResponse
  var twoFactor: @Sendable (_ code: String, _ token: String) async throws -> AuthenticationResponse
}

extension AuthenticationClient: TestDependencyKey {
  static let testValue = Self()
}

extension DependencyValues {
  fileprivate var authenticationClient: AuthenticationClient {
    get { self[AuthenticationClient.self] }
    set { self[AuthenticationClient.self] = newValue }
  }
}

// MARK: - AppCore

@Dripper
private struct TicTacToe {
  enum State: Equatable, Sendable {
    case login(Login.State)
    case newGame(NewGame.State)
  }
  enum Action: Sendable {
    case login(Login.Action)
    case newGame(NewGame.Action)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .login(.twoFactor(.presented(.twoFactorResponse(.success)))):
        state = .newGame(NewGame.State())
        return .none

      case .login(.loginResponse(.success(let response))) where !response.twoFactorRequired:
        state = .newGame(NewGame.State())
        return .none

      case .login:
        return .none

      case .newGame(.logoutButtonTapped):
        state = .login(Login.State())
        return .none

      case .newGame:
        return .none
      }
    }
    .ifCaseLet(\.login, action: \.login) {
      Login()
    }
    .ifCaseLet(\.newGame, action: \.newGame) {
      NewGame()
    }
  }
}

// MARK: - LoginCore

@Dripper
private struct Login {
  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    var email = ""
    var isFormValid = false
    var isLoginRequestInFlight = false
    var password = ""
    @PresentationState var twoFactor: TwoFactor.State?
  }

  enum Action: Sendable, ViewAction {
    case alert(PresentationAction<Alert>)
    case loginResponse(Result<AuthenticationResponse, any Error>)
    case twoFactor(PresentationAction<TwoFactor.Action>)
    case view(View)

    enum Alert: Equatable, Sendable {}

    @CasePathable
    enum View: BindableAction, Sendable {
      case binding(BindingAction<State>)
      case loginButtonTapped
    }
  }

  @Dependency(\.authenticationClient) var authenticationClient

  var body: some DripperOf<Self> {
    BindingDripper(action: \.view)
    Drip { state, action in
      switch action {
      case .alert:
        return .none

      case .loginResponse(.success(let response)):
        state.isLoginRequestInFlight = false
        if response.twoFactorRequired {
          state.twoFactor = TwoFactor.State(token: response.token)
        }
        return .none

      case .loginResponse(.failure(let error)):
        state.alert = AlertState { TextState(error.localizedDescription) }
        state.isLoginRequestInFlight = false
        return .none

      case .twoFactor:
        return .none

      case .view(.binding):
        state.isFormValid = !state.email.isEmpty && !state.password.isEmpty
        return .none

      case .view(.loginButtonTapped):
        state.isLoginRequestInFlight = true
        return .run { [email = state.email, password = state.password] pour in
          await pour(
            .loginResponse(
              Result {
                try await self.authenticationClient.login(email: email, password: password)
              }
            )
          )
        }
      }
    }
    .ifLet(\.$alert, action: \.alert)
    .ifLet(\.$twoFactor, action: \.twoFactor) {
      TwoFactor()
    }
  }
}

// MARK: - TwoFactorCore

@Dripper
private struct TwoFactor {
  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    var code = ""
    var isFormValid = false
    var isTwoFactorRequestInFlight = false
    let token: String
  }

  enum Action: Sendable, ViewAction {
    case alert(PresentationAction<Alert>)
    case twoFactorResponse(Result<AuthenticationResponse, any Error>)
    case view(View)

    enum Alert: Equatable, Sendable {}

    @CasePathable
    enum View: BindableAction, Sendable {
      case binding(BindingAction<State>)
      case submitButtonTapped
    }
  }

  @Dependency(\.authenticationClient) var authenticationClient

  var body: some DripperOf<Self> {
    BindingDripper(action: \.view)
    Drip { state, action in
      switch action {
      case .alert:
        return .none

      case .twoFactorResponse(.failure(let error)):
        state.alert = AlertState { TextState(error.localizedDescription) }
        state.isTwoFactorRequestInFlight = false
        return .none

      case .twoFactorResponse(.success):
        state.isTwoFactorRequestInFlight = false
        return .none

      case .view(.binding):
        state.isFormValid = state.code.count >= 4
        return .none

      case .view(.submitButtonTapped):
        state.isTwoFactorRequestInFlight = true
        return .run { [code = state.code, token = state.token] pour in
          await pour(
            .twoFactorResponse(
              await Result {
                try await self.authenticationClient.twoFactor(code: code, token: token)
              }
            )
          )
        }
      }
    }
    .ifLet(\.$alert, action: \.alert)
  }
}

// MARK: - NewGameCore

@Dripper
private struct NewGame {
  struct State: Equatable, Sendable {
    @PresentationState var game: Game.State?
    var oPlayerName = ""
    var xPlayerName = ""
  }

  enum Action: BindableAction, Sendable {
    case binding(BindingAction<State>)
    case game(PresentationAction<Game.Action>)
    case letsPlayButtonTapped
    case logoutButtonTapped
  }

  var body: some DripperOf<Self> {
    BindingDripper()
    Drip { state, action in
      switch action {
      case .binding:
        return .none

      case .game:
        return .none

      case .letsPlayButtonTapped:
        state.game = Game.State(
          oPlayerName: state.oPlayerName,
          xPlayerName: state.xPlayerName
        )
        return .none

      case .logoutButtonTapped:
        return .none
      }
    }
    .ifLet(\.$game, action: \.game) {
      Game()
    }
  }
}

// MARK: - GameCore

@Dripper
private struct Game {
  struct State: Equatable, Sendable {
    var board: Three<Three<Player?>> = .empty
    var currentPlayer: Player = .x
    let oPlayerName: String
    let xPlayerName: String

    var currentPlayerName: String {
      switch self.currentPlayer {
      case .o: return self.oPlayerName
      case .x: return self.xPlayerName
      }
    }
  }

  enum Action: Sendable {
    case cellTapped(row: Int, column: Int)
    case playAgainButtonTapped
    case quitButtonTapped
  }

  @Dependency(\.dismiss) var dismiss

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .cellTapped(let row, let column):
        guard
          state.board[row][column] == nil,
          !state.board.hasWinner
        else { return .none }

        state.board[row][column] = state.currentPlayer

        if !state.board.hasWinner {
          state.currentPlayer.toggle()
        }

        return .none

      case .playAgainButtonTapped:
        state = Game.State(oPlayerName: state.oPlayerName, xPlayerName: state.xPlayerName)
        return .none

      case .quitButtonTapped:
        return .run { _ in
          await self.dismiss()
        }
      }
    }
  }
}

private enum Player: Equatable, Sendable {
  case o
  case x

  mutating func toggle() {
    switch self {
    case .o: self = .x
    case .x: self = .o
    }
  }

  var label: String {
    switch self {
    case .o: return "⭕️"
    case .x: return "❌"
    }
  }
}

extension Three<Three<Player?>> {
  fileprivate static let empty = Self(
    .init(nil, nil, nil),
    .init(nil, nil, nil),
    .init(nil, nil, nil)
  )

  fileprivate var isFilled: Bool {
    self.allSatisfy { $0.allSatisfy { $0 != nil } }
  }

  fileprivate func hasWin(_ player: Player) -> Bool {
    let winConditions = [
      [0, 1, 2], [3, 4, 5], [6, 7, 8],
      [0, 3, 6], [1, 4, 7], [2, 5, 8],
      [0, 4, 8], [6, 4, 2],
    ]

    for condition in winConditions {
      let matches =
        condition
        .map { self[$0 % 3][$0 / 3] }
      let matchCount =
        matches
        .filter { $0 == player }
        .count

      if matchCount == 3 {
        return true
      }
    }
    return false
  }

  fileprivate var hasWinner: Bool {
    hasWin(.x) || hasWin(.o)
  }
}

/// A collection of three elements.
private struct Three<Element> {
  var first: Element
  var second: Element
  var third: Element

  init(_ first: Element, _ second: Element, _ third: Element) {
    self.first = first
    self.second = second
    self.third = third
  }

  func map<T>(_ transform: (Element) -> T) -> Three<T> {
    .init(transform(self.first), transform(self.second), transform(self.third))
  }
}

extension Three: MutableCollection {
  subscript(offset: Int) -> Element {
    _read {
      switch offset {
      case 0: yield self.first
      case 1: yield self.second
      case 2: yield self.third
      default: fatalError()
      }
    }
    _modify {
      switch offset {
      case 0: yield &self.first
      case 1: yield &self.second
      case 2: yield &self.third
      default: fatalError()
      }
    }
  }

  var startIndex: Int { 0 }
  var endIndex: Int { 3 }
  func index(after i: Int) -> Int { i + 1 }
}

extension Three: RandomAccessCollection {}

extension Three: Equatable where Element: Equatable {}
extension Three: Hashable where Element: Hashable {}
extension Three: Sendable where Element: Sendable {}

// MARK: - AppCoreTests

@MainActor
@Suite struct TicTacToeAppCorePortTests {
  @Test
  func integration() async {
    let store = TestStation(initialState: TicTacToe.State.login(Login.State())) {
      TicTacToe()
    } withDependencies: {
      $0.authenticationClient.login = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeef", twoFactorRequired: false)
      }
    }

    await store.pour(CasePath.login.view.binding.email, "blob@pointfree.co") {
      $0.modify(\.login) { $0.email = "blob@pointfree.co" }
    }
    await store.pour(CasePath.login.view.binding.password, "bl0bbl0b") {
      $0.modify(\.login) {
        $0.password = "bl0bbl0b"
        $0.isFormValid = true
      }
    }
    await store.pour(.login(.view(.loginButtonTapped))) {
      $0.modify(\.login) { $0.isLoginRequestInFlight = true }
    }
    await store.receive(\.login.loginResponse.success) {
      $0 = .newGame(NewGame.State())
    }
    await store.pour(CasePath.newGame.binding.oPlayerName, "Blob Sr.") {
      $0.modify(\.newGame) { $0.oPlayerName = "Blob Sr." }
    }
    await store.pour(.newGame(.logoutButtonTapped)) {
      $0 = .login(Login.State())
    }
  }

  @Test
  func twoFactor() async {
    let store = TestStation(initialState: TicTacToe.State.login(Login.State())) {
      TicTacToe()
    } withDependencies: {
      $0.authenticationClient.login = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeef", twoFactorRequired: true)
      }
      $0.authenticationClient.twoFactor = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeef", twoFactorRequired: false)
      }
    }

    await store.pour(CasePath.login.view.binding.email, "blob@pointfree.co") {
      $0.modify(\.login) { $0.email = "blob@pointfree.co" }
    }

    await store.pour(CasePath.login.view.binding.password, "bl0bbl0b") {
      $0.modify(\.login) {
        $0.password = "bl0bbl0b"
        $0.isFormValid = true
      }
    }

    await store.pour(.login(.view(.loginButtonTapped))) {
      $0.modify(\.login) { $0.isLoginRequestInFlight = true }
    }
    await store.receive(\.login.loginResponse.success) {
      $0.modify(\.login) {
        $0.isLoginRequestInFlight = false
        $0.twoFactor = TwoFactor.State(token: "deadbeef")
      }
    }

    await store.pour(CasePath.login.twoFactor.presented.view.binding.code, "1234") {
      $0.modify(\.login) {
        $0.twoFactor?.code = "1234"
        $0.twoFactor?.isFormValid = true
      }
    }

    await store.pour(.login(.twoFactor(.presented(.view(.submitButtonTapped))))) {
      $0.modify(\.login) {
        $0.twoFactor?.isTwoFactorRequestInFlight = true
      }
    }
    .finish()
    await store.receive(\.login.twoFactor.presented.twoFactorResponse.success) {
      $0 = .newGame(NewGame.State())
    }
  }
}

// MARK: - LoginCoreTests

@MainActor
@Suite struct TicTacToeLoginCorePortTests {
  @Test
  func twoFactorSuccess() async {
    let store = TestStation(initialState: Login.State()) {
      Login()
    } withDependencies: {
      $0.authenticationClient.login = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeefdeadbeef", twoFactorRequired: true)
      }
      $0.authenticationClient.twoFactor = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeefdeadbeef", twoFactorRequired: false)
      }
    }

    await store.pour(CasePath.view.binding.email, "2fa@pointfree.co") {
      $0.email = "2fa@pointfree.co"
    }
    await store.pour(CasePath.view.binding.password, "password") {
      $0.password = "password"
      $0.isFormValid = true
    }
    let twoFactorPresentationTask = await store.pour(.view(.loginButtonTapped)) {
      $0.isLoginRequestInFlight = true
    }
    await store.receive(\.loginResponse.success) {
      $0.isLoginRequestInFlight = false
      $0.twoFactor = TwoFactor.State(token: "deadbeefdeadbeef")
    }
    await store.pour(CasePath.twoFactor.presented.view.binding.code, "1234") {
      $0.twoFactor?.code = "1234"
      $0.twoFactor?.isFormValid = true
    }
    await store.pour(.twoFactor(.presented(.view(.submitButtonTapped)))) {
      $0.twoFactor?.isTwoFactorRequestInFlight = true
    }
    await store.receive(\.twoFactor.presented.twoFactorResponse.success) {
      $0.twoFactor?.isTwoFactorRequestInFlight = false
    }
    await twoFactorPresentationTask.cancel()
  }

  @Test
  func twoFactorDismissInFlight() async {
    let store = TestStation(initialState: Login.State()) {
      Login()
    } withDependencies: {
      $0.authenticationClient.login = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeefdeadbeef", twoFactorRequired: true)
      }
      $0.authenticationClient.twoFactor = { @Sendable _, _ in
        // TCA sleeps a second; the dismissal cancels it either way.
        try await Task.never()
      }
    }

    await store.pour(CasePath.view.binding.email, "2fa@pointfree.co") {
      $0.email = "2fa@pointfree.co"
    }
    await store.pour(CasePath.view.binding.password, "password") {
      $0.password = "password"
      $0.isFormValid = true
    }
    await store.pour(.view(.loginButtonTapped)) {
      $0.isLoginRequestInFlight = true
    }
    await store.receive(\.loginResponse.success) {
      $0.isLoginRequestInFlight = false
      $0.twoFactor = TwoFactor.State(token: "deadbeefdeadbeef")
    }
    await store.pour(CasePath.twoFactor.presented.view.binding.code, "1234") {
      $0.twoFactor?.code = "1234"
      $0.twoFactor?.isFormValid = true
    }
    await store.pour(.twoFactor(.presented(.view(.submitButtonTapped)))) {
      $0.twoFactor?.isTwoFactorRequestInFlight = true
    }
    await store.pour(.twoFactor(.dismiss)) {
      $0.twoFactor = nil
    }
    await store.finish()
  }
}

// MARK: - TwoFactorCoreTests

@MainActor
@Suite struct TicTacToeTwoFactorCorePortTests {
  @Test
  func happyPath() async {
    let store = TestStation(initialState: TwoFactor.State(token: "deadbeefdeadbeef")) {
      TwoFactor()
    } withDependencies: {
      $0.authenticationClient.twoFactor = { @Sendable _, _ in
        AuthenticationResponse(token: "deadbeefdeadbeef", twoFactorRequired: false)
      }
    }

    await store.pour(CasePath.view.binding.code, "1") {
      $0.code = "1"
    }
    await store.pour(CasePath.view.binding.code, "12") {
      $0.code = "12"
    }
    await store.pour(CasePath.view.binding.code, "123") {
      $0.code = "123"
    }
    await store.pour(CasePath.view.binding.code, "1234") {
      $0.code = "1234"
      $0.isFormValid = true
    }
    await store.pour(.view(.submitButtonTapped)) {
      $0.isTwoFactorRequestInFlight = true
    }
    await store.receive(\.twoFactorResponse.success) {
      $0.isTwoFactorRequestInFlight = false
    }
  }

  @Test
  func unhappyPath() async {
    let store = TestStation(initialState: TwoFactor.State(token: "deadbeefdeadbeef")) {
      TwoFactor()
    } withDependencies: {
      $0.authenticationClient.twoFactor = { @Sendable _, _ in
        throw AuthenticationError.invalidTwoFactor
      }
    }

    await store.pour(CasePath.view.binding.code, "1234") {
      $0.code = "1234"
      $0.isFormValid = true
    }
    await store.pour(.view(.submitButtonTapped)) {
      $0.isTwoFactorRequestInFlight = true
    }
    await store.receive(\.twoFactorResponse.failure) {
      $0.alert = AlertState {
        TextState(AuthenticationError.invalidTwoFactor.localizedDescription)
      }
      $0.isTwoFactorRequestInFlight = false
    }
    await store.pour(.alert(.dismiss)) {
      $0.alert = nil
    }
    await store.finish()
  }
}

// MARK: - NewGameCoreTests

@MainActor
@Suite struct TicTacToeNewGameCorePortTests {
  @Test
  func integration() async {
    let store = TestStation(initialState: NewGame.State()) {
      NewGame()
    }
    await store.pour(CasePath.binding.oPlayerName, "Blob Sr.") {
      $0.oPlayerName = "Blob Sr."
    }
    await store.pour(CasePath.binding.xPlayerName, "Blob Jr.") {
      $0.xPlayerName = "Blob Jr."
    }
    await store.pour(.letsPlayButtonTapped) {
      $0.game = Game.State(oPlayerName: "Blob Sr.", xPlayerName: "Blob Jr.")
    }
    await store.pour(\.game.presented.cellTapped, (row: 0, column: 0)) {
      $0.game!.board[0][0] = .x
      $0.game!.currentPlayer = .o
    }
    await store.pour(.game(.presented(.quitButtonTapped)))
    await store.receive(\.game.dismiss) {
      $0.game = nil
    }
    await store.pour(.letsPlayButtonTapped) {
      $0.game = Game.State(oPlayerName: "Blob Sr.", xPlayerName: "Blob Jr.")
    }
    await store.pour(.game(.dismiss)) {
      $0.game = nil
    }
    await store.pour(.logoutButtonTapped)
  }
}

// MARK: - GameCoreTests

@MainActor
@Suite struct TicTacToeGameCorePortTests {
  @Test
  func winnerQuits() async {
    let store = TestStation(
      initialState: Game.State(oPlayerName: "Blob Jr.", xPlayerName: "Blob Sr.")
    ) {
      Game()
    }

    await store.pour(.cellTapped(row: 0, column: 0)) {
      $0.board[0][0] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.cellTapped(row: 2, column: 1)) {
      $0.board[2][1] = .o
      $0.currentPlayer = .x
    }
    await store.pour(.cellTapped(row: 1, column: 0)) {
      $0.board[1][0] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.cellTapped(row: 1, column: 1)) {
      $0.board[1][1] = .o
      $0.currentPlayer = .x
    }
    await store.pour(.cellTapped(row: 2, column: 0)) {
      $0.board[2][0] = .x
    }
  }

  @Test
  func tie() async {
    let store = TestStation(
      initialState: Game.State(oPlayerName: "Blob Jr.", xPlayerName: "Blob Sr.")
    ) {
      Game()
    }

    await store.pour(.cellTapped(row: 0, column: 0)) {
      $0.board[0][0] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.cellTapped(row: 2, column: 2)) {
      $0.board[2][2] = .o
      $0.currentPlayer = .x
    }
    await store.pour(.cellTapped(row: 1, column: 0)) {
      $0.board[1][0] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.cellTapped(row: 2, column: 0)) {
      $0.board[2][0] = .o
      $0.currentPlayer = .x
    }
    await store.pour(.cellTapped(row: 2, column: 1)) {
      $0.board[2][1] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.cellTapped(row: 1, column: 2)) {
      $0.board[1][2] = .o
      $0.currentPlayer = .x
    }
    await store.pour(.cellTapped(row: 0, column: 2)) {
      $0.board[0][2] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.cellTapped(row: 0, column: 1)) {
      $0.board[0][1] = .o
      $0.currentPlayer = .x
    }
    await store.pour(.cellTapped(row: 1, column: 1)) {
      $0.board[1][1] = .x
      $0.currentPlayer = .o
    }
    await store.pour(.playAgainButtonTapped) {
      $0 = Game.State(oPlayerName: "Blob Jr.", xPlayerName: "Blob Sr.")
    }
  }
}
