import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import WalletsServer

/// `wallets-load bench`: requests per second and latencies on 127.0.0.1, each row beside the floor
/// measured in the same run: Hummingbird's own trivial route (`GET /ping`) on the same server.
/// Rows: deposits to a host in memory, and to a host in a folder (`everyAction`: each answer
/// waits for its entry's fsync), over 100 wallets, from `clients` connections for `seconds` each.
func bench(seconds: Int, clients: Int) async -> Int32 {
  var logger = Logger(label: "wallets-bench")
  logger.logLevel = .error
  let folder = NSTemporaryDirectory() + "wallets-bench-\(UUID().uuidString)"
  defer { try? FileManager.default.removeItem(atPath: folder) }
  say("wallets-load bench: \(clients) connections, \(seconds) s a row, 100 wallets, 127.0.0.1")
  do {
    for (storage, path) in [("in memory", String?.none), ("in a folder, everyAction", folder)] {
      let service = try makeWalletService(folder: path, logger: logger)
      let app = buildApplication(service, port: 0, logger: logger)
      try await app.test(.live) { client in
        guard let port = client.port else { return }
        let floor = await measure(port: port, clients: clients, seconds: seconds) { _, _ in
          (.get, "/ping", nil)
        }
        let run = UUID().uuidString.prefix(8)
        let deposits = await measure(port: port, clients: clients, seconds: seconds) { client, number in
          (.post, "/wallets/w\(number % 100)/deposit", "\(run)-\(client)-\(number)")
        }
        say(floor.row("GET /ping (Hummingbird's floor)", floor: nil))
        say(deposits.row("POST deposit, host \(storage)", floor: floor))
      }
    }
  } catch {
    say("error: \(error)")
    return 1
  }
  return 0
}

/// What a row measured.
struct Measurement {
  var requests: Int
  var failures: Int
  var seconds: Double
  var latencies: [Double]

  var perSecond: Double { Double(requests) / seconds }

  func percentile(_ p: Double) -> Double {
    guard !latencies.isEmpty else { return 0 }
    return latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
  }

  func row(_ name: String, floor: Measurement?) -> String {
    let ratio = floor.map { String(format: "  %.2fx the floor's requests/s", perSecond / $0.perSecond) } ?? ""
    return String(
      format: "%@: %.0f requests/s, p50 %.2f ms, p99 %.2f ms, %d failed%@", name, perSecond,
      percentile(0.5) * 1_000, percentile(0.99) * 1_000, failures, ratio)
  }
}

/// Sends requests from `clients` connections for `seconds`, each client one at a time.
func measure(
  port: Int, clients: Int, seconds: Int,
  request: @escaping @Sendable (_ client: Int, _ number: Int) -> (HTTPRequest.Method, String, String?)
) async -> Measurement {
  let began = ContinuousClock.now
  let deadline = began + .seconds(seconds)
  let results = await withTaskGroup(of: (latencies: [Double], failures: Int).self) { group in
    for client in 0..<clients {
      group.addTask {
        let connection = Connection(port: port)
        var latencies: [Double] = []
        var failures = 0
        var number = client
        while ContinuousClock.now < deadline {
          let (method, uri, key) = request(client, number)
          number += clients
          var headers: HTTPFields = [:]
          var body: String?
          if let key {
            headers[HTTPField.Name("Idempotency-Key")!] = key
            body = #"{"cents": 1}"#
          }
          let sent = ContinuousClock.now
          let status = try? await connection.send(method, uri, headers: headers, body: body).status
          let elapsed = ContinuousClock.now - sent
          if status == 200 {
            latencies.append(
              Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
          } else {
            failures += 1
          }
        }
        await connection.close()
        return (latencies, failures)
      }
    }
    var all: (latencies: [Double], failures: Int) = ([], 0)
    for await result in group {
      all.latencies += result.latencies
      all.failures += result.failures
    }
    return all
  }
  let elapsed = ContinuousClock.now - began
  return Measurement(
    requests: results.latencies.count, failures: results.failures,
    seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
    latencies: results.latencies.sorted())
}
