import Dripper
import DripperTesting
import Synchronization
import Testing

// TCA's WebSocket case study (Examples/CaseStudies, Effects): one long-living effect that opens a
// socket and, once it is open, runs a ping loop on the clock and a receive loop as children of a
// task group, each pouring from its own task; a send that fails into an alert; a disconnect that
// cancels all of it by id. Written again as a Dripper feature; its four tests are ported assertion
// for assertion. Each ended with effects "still running", or raced the cancellation, before
// issue 40.

/// The socket's id, for the client and for cancellation.
enum WebSocketID: Hashable, Sendable { case socket }

/// A web socket client, as the case study's `WebSocketClient`, without Foundation.
struct WebSocketClient: Sendable {
  enum Action: Equatable, Sendable {
    case didOpen(protocol: String?)
    case didClose(code: Int, reason: [UInt8]?)
  }
  enum Message: Equatable, Sendable {
    case data([UInt8])
    case string(String)
  }

  var open: @Sendable (_ id: WebSocketID, _ url: String, _ protocols: [String]) async -> AsyncStream<Action>
  var receive: @Sendable (_ id: WebSocketID) async throws -> AsyncStream<Result<Message, any Error>>
  var send: @Sendable (_ id: WebSocketID, _ message: Message) async throws -> Void
  var sendPing: @Sendable (_ id: WebSocketID) async throws -> Void
}

enum WebSocketClientKey: DependencyKey {
  static let liveValue = WebSocketClient(
    open: { _, _, _ in AsyncStream { $0.finish() } },
    receive: { _ in AsyncStream { $0.finish() } },
    send: { _, _ in },
    sendPing: { _ in })
  static let testValue = WebSocketClient(
    open: { _, _, _ in AsyncStream { $0.finish() } },
    receive: unimplemented("WebSocketClient.receive"),
    send: unimplemented("WebSocketClient.send"),
    sendPing: unimplemented("WebSocketClient.sendPing"))
}

extension DependencyValues {
  var webSocket: WebSocketClient {
    get { self[WebSocketClientKey.self] }
    set { self[WebSocketClientKey.self] = newValue }
  }
}

struct WebSocketFeature: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    var connectivityState = ConnectivityState.disconnected
    var messageToSend = ""
    var receivedMessages: [String] = []

    enum ConnectivityState: String, Sendable {
      case connected
      case connecting
      case disconnected
    }
  }

  enum Action: Sendable {
    case alert(PresentationAction<Alert>)
    case connectButtonTapped
    case messageToSendChanged(String)
    case receivedSocketMessage(Result<WebSocketClient.Message, any Error>)
    case sendButtonTapped
    case sendResponse(didSucceed: Bool)
    case webSocket(WebSocketClient.Action)

    enum Alert: Equatable, Sendable {}
  }

  @Dependency(\.clock) var clock
  @Dependency(\.webSocket) var webSocket

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .alert:
        return .none

      case .connectButtonTapped:
        switch state.connectivityState {
        case .connected, .connecting:
          state.connectivityState = .disconnected
          return .cancel(id: WebSocketID.socket)

        case .disconnected:
          state.connectivityState = .connecting
          return .run { [clock, webSocket] pour in
            let actions = await webSocket.open(WebSocketID.socket, "wss://echo.websocket.events", [])
            await withThrowingTaskGroup(of: Void.self) { group in
              for await action in actions {
                group.addTask { await pour(.webSocket(action)) }
                switch action {
                case .didOpen:
                  group.addTask {
                    while !Task.isCancelled {
                      try await clock.sleep(for: .seconds(10))
                      try? await webSocket.sendPing(WebSocketID.socket)
                    }
                  }
                  group.addTask {
                    for await result in try await webSocket.receive(WebSocketID.socket) {
                      await pour(.receivedSocketMessage(result))
                    }
                  }
                case .didClose:
                  return
                }
              }
            }
          }
          .cancellable(id: WebSocketID.socket)
        }

      case .messageToSendChanged(let message):
        state.messageToSend = message
        return .none

      case .receivedSocketMessage(.success(let message)):
        if case .string(let string) = message {
          state.receivedMessages.append(string)
        }
        return .none

      case .receivedSocketMessage(.failure):
        return .none

      case .sendButtonTapped:
        let messageToSend = state.messageToSend
        state.messageToSend = ""
        return .run { [webSocket] pour in
          try await webSocket.send(WebSocketID.socket, .string(messageToSend))
          await pour(.sendResponse(didSucceed: true))
        } catch: { _, pour in
          await pour(.sendResponse(didSucceed: false))
        }
        .cancellable(id: WebSocketID.socket)

      case .sendResponse(didSucceed: false):
        state.alert = AlertState {
          TextState("Could not send socket message. Connect to the server first, and try again.")
        }
        return .none

      case .sendResponse(didSucceed: true):
        return .none

      case .webSocket(.didClose):
        state.connectivityState = .disconnected
        return .cancel(id: WebSocketID.socket)

      case .webSocket(.didOpen):
        state.connectivityState = .connected
        state.receivedMessages.removeAll()
        return .none
      }
    }
    .ifLet(\.$alert, action: .alert)
  }
}

extension CasePath<WebSocketFeature.Action, PresentationAction<WebSocketFeature.Action.Alert>> {
  static var alert: Self { Self(WebSocketFeature.Action.alert) }
}

/// TCA's `\.webSocket.didOpen`, `\.webSocket.didClose`, `\.receivedSocketMessage.success` and
/// `\.sendResponse`.
extension CasePath<WebSocketFeature.Action, String?> {
  static var didOpen: Self {
    Self(
      { .webSocket(.didOpen(protocol: $0)) },
      extract: {
        if case .webSocket(.didOpen(let `protocol`)) = $0 { `protocol` } else { nil }
      })
  }
}
extension CasePath<WebSocketFeature.Action, Int> {
  static var didClose: Self {
    Self(
      { .webSocket(.didClose(code: $0, reason: nil)) },
      extract: {
        if case .webSocket(.didClose(let code, _)) = $0 { code } else { nil }
      })
  }
}
extension CasePath<WebSocketFeature.Action, WebSocketClient.Message> {
  static var receivedMessage: Self {
    Self(
      { .receivedSocketMessage(.success($0)) },
      extract: {
        if case .receivedSocketMessage(.success(let message)) = $0 { message } else { nil }
      })
  }
}
extension CasePath<WebSocketFeature.Action, Bool> {
  static var sendResponse: Self {
    Self(
      { .sendResponse(didSucceed: $0) },
      extract: {
        if case .sendResponse(let succeeded) = $0 { succeeded } else { nil }
      })
  }
}

/// TCA's `internalServerError` close code.
private let internalServerError = 1_011

/// Taps connect and opens the socket: the first steps of three of the tests.
private func connect(
  _ store: TestStation<WebSocketFeature.State, WebSocketFeature.Action>,
  opening actions: AsyncStream<WebSocketClient.Action>.Continuation,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  await store.pour(
    .connectButtonTapped, assert: { $0.connectivityState = .connecting },
    fileID: fileID, filePath: filePath, line: line, column: column)
  actions.yield(.didOpen(protocol: nil))
  await store.receive(
    .didOpen, assert: { $0.connectivityState = .connected },
    fileID: fileID, filePath: filePath, line: line, column: column)
}

@Suite struct WebSocketTests {
  @Test func webSocketHappyPath() async {
    let actions = AsyncStream.makeStream(of: WebSocketClient.Action.self)
    let messages = AsyncStream.makeStream(of: Result<WebSocketClient.Message, any Error>.self)

    let store = TestStation(initialState: WebSocketFeature.State()) {
      WebSocketFeature()
    } withDependencies: {
      $0.clock = ImmediateClock()
      $0.webSocket.open = { _, _, _ in actions.stream }
      $0.webSocket.receive = { _ in messages.stream }
      $0.webSocket.send = { _, _ in }
      $0.webSocket.sendPing = { _ in try await Task.never() }
    }

    // Connect to the socket
    await connect(store, opening: actions.continuation)

    // Receive a message
    messages.continuation.yield(.success(.string("Welcome to echo.pointfree.co")))
    await store.receive(.receivedMessage) {
      $0.receivedMessages = ["Welcome to echo.pointfree.co"]
    }

    // Send a message
    await store.pour(.messageToSendChanged("Hi")) {
      $0.messageToSend = "Hi"
    }
    await store.pour(.sendButtonTapped) {
      $0.messageToSend = ""
    }
    await store.receive(.sendResponse)

    // Receive a message
    messages.continuation.yield(.success(.string("Hi")))
    await store.receive(.receivedMessage) {
      $0.receivedMessages = ["Welcome to echo.pointfree.co", "Hi"]
    }

    // Disconnect from the socket
    await store.pour(.connectButtonTapped) {
      $0.connectivityState = .disconnected
    }
    await store.finish()
  }

  @Test func webSocketSendFailure() async {
    let actions = AsyncStream.makeStream(of: WebSocketClient.Action.self)
    let messages = AsyncStream.makeStream(of: Result<WebSocketClient.Message, any Error>.self)
    struct SendFailure: Error, Equatable {}

    let store = TestStation(initialState: WebSocketFeature.State()) {
      WebSocketFeature()
    } withDependencies: {
      $0.clock = ImmediateClock()
      $0.webSocket.open = { _, _, _ in actions.stream }
      $0.webSocket.receive = { _ in messages.stream }
      $0.webSocket.send = { _, _ in throw SendFailure() }
      $0.webSocket.sendPing = { _ in try await Task.never() }
    }

    // Connect to the socket
    await connect(store, opening: actions.continuation)

    // Send a message
    await store.pour(.messageToSendChanged("Hi")) {
      $0.messageToSend = "Hi"
    }
    await store.pour(.sendButtonTapped) {
      $0.messageToSend = ""
    }
    await store.receive(.sendResponse) {
      $0.alert = AlertState {
        TextState("Could not send socket message. Connect to the server first, and try again.")
      }
    }

    // Disconnect from the socket
    await store.pour(.connectButtonTapped) {
      $0.connectivityState = .disconnected
    }
    await store.finish()
  }

  @Test func webSocketPings() async {
    let actions = AsyncStream.makeStream(of: WebSocketClient.Action.self)
    let clock = TestClock()
    let pingsCount = PingCount()

    let store = TestStation(initialState: WebSocketFeature.State()) {
      WebSocketFeature()
    } withDependencies: {
      $0.clock = clock
      $0.webSocket.open = { _, _, _ in actions.stream }
      $0.webSocket.receive = { _ in try await Task.never() }
      $0.webSocket.sendPing = { _ in pingsCount.value.add(1, ordering: .relaxed) }
    }

    // Connect to the socket
    await connect(store, opening: actions.continuation)

    // Wait for ping
    #expect(pingsCount.value.load(ordering: .relaxed) == 0)
    await clock.advance(by: .seconds(10))
    #expect(pingsCount.value.load(ordering: .relaxed) == 1)

    // Disconnect from the socket
    await store.pour(.connectButtonTapped) {
      $0.connectivityState = .disconnected
    }
  }

  @Test func webSocketConnectError() async {
    let actions = AsyncStream.makeStream(of: WebSocketClient.Action.self)

    let store = TestStation(initialState: WebSocketFeature.State()) {
      WebSocketFeature()
    } withDependencies: {
      $0.clock = ImmediateClock()
      $0.webSocket.open = { _, _, _ in actions.stream }
      $0.webSocket.receive = { _ in try await Task.never() }
      $0.webSocket.sendPing = { _ in try await Task.never() }
    }

    // Attempt to connect to the socket
    await store.pour(.connectButtonTapped) {
      $0.connectivityState = .connecting
    }
    actions.continuation.yield(.didClose(code: internalServerError, reason: nil))
    await store.receive(.didClose) {
      $0.connectivityState = .disconnected
    }
  }
}

/// How many pings the socket sent: TCA counts them on the main actor.
private final class PingCount: Sendable {
  let value = Atomic<Int>(0)
}
