// A node the tests start and kill: a host on the PostgreSQL store pouring deposits, each with an
// id, into KEYS keys; it prints `ok AMOUNT` once a deposit is acknowledged.
//
//   DripperPostgresNode URL NODE PREFIX KEYS COUNT
import Dripper
import DripperPostgres
import Foundation
import PostgresNIO
import Synchronization

struct Deposits: Dripper {
  struct State: Codable, Sendable, Equatable { var amounts: [Int] = [] }
  enum Action: Codable, Sendable, Equatable { case deposit(Int) }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .deposit(let amount): state.amounts.append(amount)
    }
    return .none
  }
}

let usage = """
  usage: DripperPostgresNode pour URL NODE PREFIX KEYS COUNT
         DripperPostgresNode verify URL PREFIX KEYS COUNT < ACKNOWLEDGED
  """
let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? ""
let counts = arguments.suffix(2).compactMap { Int($0) }
guard (mode == "pour" && arguments.count == 6) || (mode == "verify" && arguments.count == 5),
  counts.count == 2,
  counts[0] > 0, counts[1] >= 0, let parsed = URLComponents(string: arguments[1]), let server = parsed.host,
  let port = parsed.port, let user = parsed.user
else {
  FileHandle.standardError.write(Data((usage + "\n").utf8))
  exit(2)
}
let (keys, count) = (counts[0], counts[1])
let prefix = arguments[arguments.count - 3]
let node = mode == "pour" ? arguments[2] : "verifier"
let client = PostgresClient(
  configuration: .init(
    host: server, port: port, username: user, password: parsed.password,
    database: String(parsed.path.dropFirst()),
    tls: .disable))
let run = Task { await client.run() }
let store = PostgresKeyStore(client: client)
try await store.prepare()
let host = try StationHost<String, Deposits>(
  storage: .store(store, codec: .json, snapshotEvery: 7, node: node),
  lifetime: HostLifetime(retryFailedAfter: .milliseconds(200))
) { _ in
  Deposits.State()
} dripper: { _ in
  Deposits()
}

if mode == "verify" {
  // Every acknowledged deposit is there once; none is there twice.
  var acknowledged: Set<Int> = []
  while let line = readLine() {
    if line.hasPrefix("ok "), let amount = Int(line.dropFirst(3)) { acknowledged.insert(amount) }
  }
  var all: [Int] = []
  for key in 0..<keys { all += try await host.state(of: "\(prefix)-\(key)").amounts }
  let lost = acknowledged.subtracting(all)
  let twice = all.count - Set(all).count
  print(
    "verify: \(acknowledged.count) acknowledged, \(all.count) applied, \(lost.count) lost, \(twice) applied twice"
  )
  await host.close()
  run.cancel()
  exit(lost.isEmpty && twice == 0 && all.allSatisfy { (1...count).contains($0) } ? 0 : 1)
}

let next = Mutex(0)
await withTaskGroup(of: Void.self) { group in
  for _ in 0..<16 {
    group.addTask {
      while true {
        let amount = next.withLock { value -> Int in
          value += 1
          return value
        }
        guard amount <= count else { return }
        do {
          _ = try await host.pour(.deposit(amount), to: "\(prefix)-\(amount % keys)", id: "\(amount)")
          FileHandle.standardOutput.write(Data("ok \(amount)\n".utf8))
        } catch {
          FileHandle.standardError.write(Data("refused \(amount): \(error)\n".utf8))
          // The server may be down: a moment before the next.
          try? await Task.sleep(for: .milliseconds(20))
        }
      }
    }
  }
}
await host.close()
run.cancel()
