import Dripper
import DripperService
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WalletFeature

/// The service's wallets: a host of one key per wallet, run as a service.
public typealias WalletService = HostService<String, Wallet>

/// A host of wallets in `folder` (in memory if `nil`), with its telemetry, as a service.
public func makeWalletService(folder: String?, logger: Logger) throws -> WalletService {
  let telemetry = HostTelemetry<String>(name: "wallets", logger: logger)
  let host = try StationHost<String, Wallet>(
    storage: folder.map { .folder($0, codec: .json) } ?? .inMemory,
    lifetime: HostLifetime(idleAfter: .seconds(60), maximumResident: 10_000),
    observer: telemetry.observer
  ) { _ in
    Wallet.State()
  } dripper: { _ in
    Wallet()
  }
  return HostService(host, telemetry: telemetry)
}

/// The HTTP application over `service`: the host runs as one of its services, listed before the
/// server, so that on SIGTERM the server stops first and the host closes after it.
public func buildApplication(
  _ service: WalletService, address: String = "127.0.0.1", port: Int, logger: Logger,
  onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
  let router = Router()
  addRoutes(to: router, service)
  return Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname(address, port: port), serverName: "Wallets"),
    services: [service],
    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
    logger: logger)
}

/// The routes: `GET /ping` (the floor the benchmark compares with), `GET /wallets/{id}`, and
/// `POST /wallets/{id}/deposit`, `/withdraw` and `/hold` with an `Idempotency-Key`.
func addRoutes(to router: Router<BasicRequestContext>, _ service: WalletService) {
  router.get("/ping") { _, _ in "pong" }
  router.get("/wallets/{id}") { _, context in
    try await answer {
      let id = try walletID(context)
      guard try await service.host.exists(id) else { throw Refusal(.notFound, "no wallet \(id)") }
      return try json(.ok, WalletView(try await service.host.state(of: id)))
    }
  }
  for (path, kind) in [("deposit", RequestKind.deposit), ("withdraw", .withdraw), ("hold", .hold)] {
    router.post("/wallets/{id}/\(path)") { request, context in
      try await answer {
        let id = try walletID(context)
        let key = try idempotencyKey(request)
        let action = try await kind.action(from: request)
        let answer = try await service.ask(action, to: id, id: key)
        switch answer.reply {
        case .accepted(let summary)?: return try json(.ok, summary)
        case .refused(let reason)?: throw Refusal(.conflict, reason)
        case nil: throw Refusal(.internalServerError, "the wallet gave no answer")
        }
      }
    }
  }
}

/// A request's failure as an HTTP status and a one-line reason.
struct Refusal: Error {
  var status: HTTPResponse.Status
  var reason: String

  init(_ status: HTTPResponse.Status, _ reason: String) {
    self.status = status
    self.reason = reason
  }

  init(_ error: HostError) {
    switch error {
    case .requestMismatch(_, let id):
      self.init(.unprocessableContent, "Idempotency-Key \(id) was used for another request")
    case .closed: self.init(.serviceUnavailable, "the service is shutting down; retry")
    case .storage, .hostStorage, .refused:
      self.init(.serviceUnavailable, "the wallet is unavailable; retry with the same Idempotency-Key")
    }
  }
}

/// The response of `body`, or of its refusal: `{"error": reason}`.
func answer(_ body: () async throws -> Response) async throws -> Response {
  do {
    return try await body()
  } catch let refusal as Refusal {
    return try json(refusal.status, ["error": refusal.reason])
  } catch let error as HostError {
    let refusal = Refusal(error)
    return try json(refusal.status, ["error": refusal.reason])
  }
}

func json(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  let data = try encoder.encode(value)
  return Response(
    status: status, headers: [.contentType: "application/json"],
    body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}

/// The wallet id of the path: 1 to 64 letters, digits, `-` or `_`.
func walletID(_ context: BasicRequestContext) throws -> String {
  let id = context.parameters.get("id") ?? ""
  guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy(isIDByte) else {
    throw Refusal(.badRequest, "a wallet id is 1 to 64 letters, digits, '-' or '_'")
  }
  return id
}

/// The request's `Idempotency-Key`: 1 to 128 visible ASCII characters.
func idempotencyKey(_ request: Request) throws -> String {
  guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else {
    throw Refusal(.badRequest, "an Idempotency-Key header is needed")
  }
  guard (1...128).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
    throw Refusal(.badRequest, "an Idempotency-Key is 1 to 128 visible ASCII characters")
  }
  return key
}

private func isIDByte(_ byte: UInt8) -> Bool {
  switch byte {
  case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
    UInt8(ascii: "0")...UInt8(ascii: "9"),
    UInt8(ascii: "-"), UInt8(ascii: "_"):
    true
  default: false
  }
}

/// What a POST asks of a wallet, and how its body reads.
enum RequestKind: Sendable {
  case deposit, withdraw, hold

  /// The largest amount, in cents.
  static let maximumCents = 1_000_000_000

  private struct Body: Decodable {
    var cents: Int
    var seconds: Int?
  }

  func action(from request: Request) async throws -> Wallet.Action {
    let bytes = try await request.body.collect(upTo: 1_024)
    let expected = self == .hold ? #"{"cents": N, "seconds": S}"# : #"{"cents": N}"#
    guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) else {
      throw Refusal(.badRequest, "the body must be JSON \(expected)")
    }
    guard (1...Self.maximumCents).contains(body.cents) else {
      throw Refusal(.badRequest, "cents must be a whole number from 1 to \(Self.maximumCents)")
    }
    switch self {
    case .deposit: return .deposit(cents: body.cents)
    case .withdraw: return .withdraw(cents: body.cents)
    case .hold:
      guard let seconds = body.seconds, (1...2_592_000).contains(seconds) else {
        throw Refusal(.badRequest, "seconds must be a whole number from 1 to 2592000 (30 days)")
      }
      return .hold(cents: body.cents, seconds: seconds)
    }
  }
}

/// A wallet as `GET` shows it.
struct WalletView: Codable, Equatable {
  var balance: Int
  var available: Int
  var deposits: Int
  var holds: Int
  var entries: [Wallet.Entry]

  init(_ state: Wallet.State) {
    balance = state.balance
    available = state.available
    deposits = state.deposits
    holds = state.holds.count
    entries = state.entries
  }
}
