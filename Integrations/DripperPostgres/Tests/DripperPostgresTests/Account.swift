import Dripper
import Foundation
import Synchronization

/// An account: the feature the tests host, one key an account.
struct Account: Dripper {
  struct State: Equatable, Sendable, Codable {
    var balance = 0
    var expired = false
    var log: [String] = []
  }

  enum Action: Equatable, Sendable, Codable {
    case deposit(Int)
    case expireAt(Date)
    case expire
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deposit(let amount):
        state.balance += amount
        state.log.append("+\(amount)")
        return .none
      case .expireAt(let date):
        return .remind(.expire, at: date, id: "expiry")
      case .expire:
        state.expired = true
        return .none
      }
    }
  }
}

/// A host of accounts on `store`, as node `node`.
func accountHost(
  _ store: some KeyStore, node: String, clock: TestClock? = nil,
  start: Date = Date(timeIntervalSince1970: 1_800_000_000),
  owns: @escaping @Sendable (String) -> Bool = { _ in true },
  failures: LockedList? = nil
) throws -> StationHost<String, Account> {
  let time: HostTime = clock.map { .controlled(by: $0, startingAt: start) } ?? .live
  return try StationHost(
    storage: .store(store, codec: .json, snapshotEvery: 5, node: node, owns: owns),
    lifetime: HostLifetime(idleAfter: .seconds(60), time: time),
    observer: StationHostObserver(diagnostic: { key, diagnostic in
      failures?.append("\(key): \(diagnostic.message)")
    })
  ) { _ in
    Account.State()
  } dripper: { _ in
    Account()
  }
}

/// Lines told by several tasks.
final class LockedList: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}
