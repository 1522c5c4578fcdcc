import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// One connection to the service on 127.0.0.1, made again after a failure.
final class Connection {
  let port: Int
  private var client: TestClient?

  init(port: Int) { self.port = port }

  /// Sends a request; throws when the connection failed (it is made again on the next call).
  func send(
    _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], body: String? = nil
  ) async throws -> (status: Int, body: String) {
    let client = self.client ?? connected()
    do {
      let response = try await client.execute(
        TestClient.Request(uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }))
      return (response.status.code, response.body.map { String(buffer: $0) } ?? "")
    } catch {
      self.client = nil
      try? await client.shutdown()
      throw error
    }
  }

  private func connected() -> TestClient {
    let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(20)))
    client.connect()
    self.client = client
    return client
  }

  func close() async { try? await client?.shutdown() }
}

/// A deposit's request: the wallet, the idempotency key, the cents.
struct Deposit: Sendable {
  var wallet: String
  var key: String
  var cents: Int

  static func number(_ number: Int, of run: String, wallets: Int) -> Deposit {
    Deposit(wallet: "w\(number % wallets)", key: "\(run)-\(number)", cents: 1 + number % 7)
  }

  func send(on connection: Connection) async throws -> Int {
    try await connection.send(
      .post, "/wallets/\(wallet)/deposit",
      headers: [HTTPField.Name("Idempotency-Key")!: key, .contentType: "application/json"],
      body: #"{"cents": \#(cents)}"#
    ).status
  }
}
