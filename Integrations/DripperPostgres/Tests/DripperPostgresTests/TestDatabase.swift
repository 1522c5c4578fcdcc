import Dripper
import DripperPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// The server the tests use: `DRIPPER_POSTGRES_URL`, which `scripts/postgres.sh start` prints. A
/// test without it fails, saying how to start one: it never passes by skipping.
enum TestDatabase {
  static let url = ProcessInfo.processInfo.environment["DRIPPER_POSTGRES_URL"]

  /// The server's configuration, for the database `database` if given.
  static func configuration(database: String? = nil) throws -> PostgresClient.Configuration {
    guard let url, let parsed = URLComponents(string: url), let host = parsed.host, let port = parsed.port,
      let user = parsed.user
    else {
      throw JournalError(
        "no PostgreSQL server: run eval \"$(scripts/postgres.sh start /tmp/dripper-pg)\" first (DRIPPER_POSTGRES_URL is \(url ?? "unset"))"
      )
    }
    var configuration = PostgresClient.Configuration(
      host: host, port: port, username: user, password: parsed.password,
      database: database ?? String(parsed.path.dropFirst()), tls: .disable)
    configuration.options.maximumConnections = 20
    return configuration
  }

  /// Runs `body` with a running client and a prepared store.
  @discardableResult
  static func withStore<T: Sendable>(
    database: String? = nil, _ body: @Sendable (PostgresKeyStore, PostgresClient) async throws -> T
  ) async throws -> T {
    let client = PostgresClient(configuration: try configuration(database: database))
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      defer { group.cancelAll() }
      let store = PostgresKeyStore(client: client)
      try await store.prepare()
      return try await body(store, client)
    }
  }
}
