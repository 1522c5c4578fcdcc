import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WalletsServer

/// The service end to end, on a live server on 127.0.0.1.
@Suite struct ServerTests {
  func withServer(
    folder: String? = nil, _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    var logger = Logger(label: "wallets-test")
    logger.logLevel = .warning
    let service = try makeWalletService(folder: folder, logger: logger)
    let app = buildApplication(service, port: 0, logger: logger)
    try await app.test(.live) { client in try await test(client) }
  }

  static func post(
    _ client: any TestClientProtocol, _ path: String, key: String?, body: String
  ) async throws -> (Int, String) {
    var headers: HTTPFields = [.contentType: "application/json"]
    if let key { headers[HTTPField.Name("Idempotency-Key")!] = key }
    return try await client.execute(
      uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)
    ) {
      ($0.status.code, String(buffer: $0.body))
    }
  }

  static func get(_ client: any TestClientProtocol, _ path: String) async throws -> (Int, String) {
    try await client.execute(uri: path, method: .get) { ($0.status.code, String(buffer: $0.body)) }
  }

  @Test func depositsWithdrawalsAndRetries() async throws {
    try await withServer { client in
      #expect(
        try await Self.post(client, "/wallets/a/deposit", key: "k1", body: #"{"cents": 500}"#)
          == (200, #"{"available":500,"balance":500}"#))
      // A retried key gets the first answer and is applied once.
      #expect(
        try await Self.post(client, "/wallets/a/deposit", key: "k1", body: #"{"cents": 500}"#)
          == (200, #"{"available":500,"balance":500}"#))
      // The same key with another body: a 422.
      #expect(
        try await Self.post(client, "/wallets/a/deposit", key: "k1", body: #"{"cents": 7}"#)
          == (422, #"{"error":"Idempotency-Key k1 was used for another request"}"#))
      // An overdraw: the feature's refusal, a 409.
      #expect(
        try await Self.post(client, "/wallets/a/withdraw", key: "k2", body: #"{"cents": 501}"#)
          == (409, #"{"error":"would overdraw: 500 available"}"#))
      #expect(
        try await Self.post(client, "/wallets/a/hold", key: "k3", body: #"{"cents": 100, "seconds": 60}"#)
          == (200, #"{"available":400,"balance":500}"#))
      let (status, body) = try await Self.get(client, "/wallets/a")
      #expect(status == 200)
      #expect(
        body.contains(#""balance":500"#) && body.contains(#""deposits":1"#) && body.contains(#""holds":1"#))
    }
  }

  /// Bad input is a 4xx with a one-line reason and changes nothing; an unknown wallet is a 404 and
  /// creates nothing on disk.
  @Test func badInputChangesNothing() async throws {
    let folder = NSTemporaryDirectory() + "wallets-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try await withServer(folder: folder) { client in
      let cases: [(String, String?, String, Int, String)] = [
        ("/wallets/a/deposit", "k", #"{"cents": "ten"}"#, 400, #"the body must be JSON {\"cents\": N}"#),
        (
          "/wallets/a/deposit", "k", #"{"cents": -5}"#, 400,
          "cents must be a whole number from 1 to 1000000000"
        ),
        ("/wallets/a/deposit", "k", "not json", 400, #"the body must be JSON {\"cents\": N}"#),
        ("/wallets/a/deposit", nil, #"{"cents": 5}"#, 400, "an Idempotency-Key header is needed"),
        (
          "/wallets/a/hold", "k", #"{"cents": 5}"#, 400,
          "seconds must be a whole number from 1 to 2592000 (30 days)"
        ),
        (
          "/wallets/a%2Fb/deposit", "k", #"{"cents": 5}"#, 400,
          "a wallet id is 1 to 64 letters, digits, '-' or '_'"
        ),
        (
          "/wallets/\(String(repeating: "x", count: 10_000))/deposit", "k", #"{"cents": 5}"#, 400,
          "a wallet id is 1 to 64 letters, digits, '-' or '_'"
        ),
      ]
      for (path, key, body, status, reason) in cases {
        let (got, text) = try await Self.post(client, path, key: key, body: body)
        #expect(got == status, "\(path) \(body)")
        #expect(text == #"{"error":"\#(reason)"}"#, "\(path) \(body)")
      }
      #expect(try await Self.get(client, "/wallets/nobody") == (404, #"{"error":"no wallet nobody"}"#))
      #expect(try await Self.get(client, "/wallets/a") == (404, #"{"error":"no wallet a"}"#))
    }
    let made = (try? FileManager.default.subpathsOfDirectory(atPath: folder + "/keys")) ?? []
    #expect(made.isEmpty)
  }

  /// A wallet in a folder is there after the server stops and starts again.
  @Test func aWalletOutlivesTheServer() async throws {
    let folder = NSTemporaryDirectory() + "wallets-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try await withServer(folder: folder) { client in
      _ = try await Self.post(client, "/wallets/a/deposit", key: "k1", body: #"{"cents": 250}"#)
    }
    try await withServer(folder: folder) { client in
      #expect(
        try await Self.post(client, "/wallets/a/deposit", key: "k1", body: #"{"cents": 250}"#)
          == (200, #"{"available":250,"balance":250}"#))
      let (_, body) = try await Self.get(client, "/wallets/a")
      #expect(body.contains(#""deposits":1"#))
    }
  }
}
