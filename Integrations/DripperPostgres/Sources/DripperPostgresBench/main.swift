// dripper-postgres-bench: a host's durable pours into PostgreSQL, beside postgres-nio's own floor
// and the folder store, measured in one run against one server.
//
//   eval "$(scripts/postgres.sh start /tmp/dripper-pg)"
//   swift run -c release dripper-postgres-bench [--quick]
import Dripper
import DripperPostgres
import Foundation
import Logging
import PostgresNIO

struct Counter: Dripper {
  struct State: Codable, Sendable, Equatable { var count = 0 }
  enum Action: Codable, Sendable, Equatable { case add(Int) }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .add(let amount): state.count += amount
    }
    return .none
  }
}

func host(_ storage: HostStorage<Counter.State, Counter.Action>) throws -> StationHost<String, Counter> {
  try StationHost(storage: storage) { _ in
    Counter.State()
  } dripper: { _ in
    Counter()
  }
}

/// Seconds `body` takes.
func time(_ body: () async throws -> Void) async rethrows -> Double {
  let start = ContinuousClock.now
  try await body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func row(_ name: String, _ value: String) {
  print(name.padding(toLength: 58, withPad: " ", startingAt: 0) + value)
}

let quick = CommandLine.arguments.contains("--quick")
let single = quick ? 100 : 1_000
let keyCount = quick ? 100 : 1_000
let perKey = quick ? 2 : 5
guard let url = ProcessInfo.processInfo.environment["DRIPPER_POSTGRES_URL"],
  let parsed = URLComponents(string: url), let server = parsed.host, let port = parsed.port,
  let user = parsed.user
else {
  print("dripper-postgres-bench: set DRIPPER_POSTGRES_URL (scripts/postgres.sh start prints it)")
  exit(2)
}
var configuration = PostgresClient.Configuration(
  host: server, port: port, username: user, password: parsed.password,
  database: String(parsed.path.dropFirst()),
  tls: .disable)
configuration.options.maximumConnections = 50
let client = PostgresClient(configuration: configuration)
let run = Task { await client.run() }
let store = PostgresKeyStore(client: client)
try await store.prepare()
let tag = UInt32.random(in: .min ... .max)
print(
  "dripper-postgres-bench: \(single) sequential pours, \(keyCount) keys × \(perKey) at once; server \(server):\(port)"
)

// The floor: the same bytes a pour writes, one INSERT and one commit a row, through postgres-nio.
try await client.query(
  "CREATE TABLE IF NOT EXISTS bench_floor (key bytea, sequence bigint, bytes bytea, PRIMARY KEY (key, sequence))"
)
let line = ByteBuffer(string: "1 - a {\"add\":{\"_0\":1}} 0123456789abcdef")
let floorKey = ByteBuffer(string: "floor-\(tag)")
let floor =
  try await time {
    for sequence in 1...single {
      try await client.query(
        "INSERT INTO bench_floor (key, sequence, bytes) VALUES (\(floorKey), \(Int64(sequence)), \(line))")
    }
  } / Double(single)
row("floor: postgres-nio, one INSERT a commit", String(format: "%7.0f µs", floor * 1e6))
// The same, answered only once committed: an INSERT outside a transaction is answered before its
// commit (at the protocol's Sync), so a store cannot acknowledge on it; BEGIN, INSERT, COMMIT can.
let benchLogger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
let committedFloor =
  try await time {
    for sequence in 1...single {
      _ = try await client.withTransaction(logger: benchLogger) { connection in
        try await connection.query(
          "INSERT INTO bench_floor (key, sequence, bytes) VALUES (\(floorKey), \(Int64(-sequence)), \(line))",
          logger: benchLogger)
      }
    }
  } / Double(single)
row(
  "floor: the same, BEGIN, INSERT, COMMIT",
  String(format: "%7.0f µs  %.2f× the floor", committedFloor * 1e6, committedFloor / floor))

/// The figure `seconds`, against both floors.
func againstFloors(_ seconds: Double) -> String {
  String(
    format: "%7.0f µs  %.2f× the floor, %.2f× committed", seconds * 1e6, seconds / floor,
    seconds / committedFloor)
}

// A store alone: one key's writes of one entry each, without a host.
func writesAlone(_ store: some KeyStore) async throws -> Double {
  let key = "alone-\(tag)"
  let claimed = try await store.claim(key, owner: "bench")
  return try await time {
    for sequence in 1...single {
      let entry = StoredEntry(sequence: UInt64(sequence), schema: 1, bytes: Array(line.readableBytesView))
      if let error = await store.write([KeyWrite(key: key, epoch: claimed.epoch, entries: [entry])]).first
        ?? nil
      {
        throw error
      }
    }
  } / Double(single)
}
row("store alone: a write of one entry", againstFloors(try await writesAlone(store)))

// The store alone: claims of new keys, all at once, as a burst of new keys makes them.
let claims =
  try await time {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for key in 0..<keyCount {
        group.addTask { _ = try await store.claim("claim-\(tag)-\(key)", owner: "bench") }
      }
      try await group.waitForAll()
    }
  }
row(
  "store alone: \(keyCount) claims of new keys at once", String(format: "%7.0f/s", Double(keyCount) / claims))

/// Rows of `host`, named `name`: `single` pours into one key, then `perKey` pours into each of
/// `keyCount` keys at once, twice: new keys (each key's activation, its claim, included, as a
/// burst of new keys has it), then the same keys again, resident (the writes alone, grouped).
func measure(_ host: StationHost<String, Counter>, _ name: String) async throws {
  let one =
    try await time {
      for sequence in 1...single { _ = try await host.pour(.add(1), to: "one-\(tag)", id: "\(sequence)") }
    } / Double(single)
  row("\(name): durable pour into one key", againstFloors(one))
  for (round, label) in ["new", "resident"].enumerated() {
    let many = try await time {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for key in 0..<keyCount {
          group.addTask {
            for sequence in 1...perKey {
              _ = try await host.pour(.add(1), to: "many-\(tag)-\(key)", id: "\(round)-\(sequence)")
            }
          }
        }
        try await group.waitForAll()
      }
    }
    let rate = Double(keyCount * perKey) / many
    row(
      "\(name): \(keyCount) \(label) keys at once",
      String(format: "%7.0f/s  %.1f× one key's rate", rate, rate * one))
  }
  await host.close()
}

try await measure(try host(.store(store, codec: .json, node: "bench")), "store")
let folderPath = NSTemporaryDirectory() + "dripper-postgres-bench-\(tag)"
try await measure(try host(.folder(folderPath, codec: .json)), "folder")
try? FileManager.default.removeItem(atPath: folderPath)

// The folder store (`FolderKeyStore`), beside its own floor: the same bytes appended to a file
// and synced (fdatasync), one write at a time.
let fileFloorPath = NSTemporaryDirectory() + "dripper-postgres-bench-floor-\(tag)"
let fileFloorDescriptor = open(fileFloorPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
let lineBytes = Array(line.readableBytesView)
let fileFloor =
  await time {
    for _ in 1...single {
      _ = lineBytes.withUnsafeBytes { write(fileFloorDescriptor, $0.baseAddress, $0.count) }
      _ = fdatasync(fileFloorDescriptor)
    }
  } / Double(single)
close(fileFloorDescriptor)
unlink(fileFloorPath)
row("floor: a file, append and fdatasync", String(format: "%7.0f µs", fileFloor * 1e6))
let folderStorePath = NSTemporaryDirectory() + "dripper-postgres-bench-store-\(tag)"
let folderStore = try FolderKeyStore(folder: folderStorePath)
let folderAlone = try await writesAlone(folderStore)
row(
  "folder store alone: a write of one entry",
  String(format: "%7.0f µs  %.2f× the file's floor", folderAlone * 1e6, folderAlone / fileFloor))
try await measure(try host(.store(folderStore, codec: .json, node: "bench")), "folder store")
try? FileManager.default.removeItem(atPath: folderStorePath)
try await client.query("DROP TABLE bench_floor")
run.cancel()
