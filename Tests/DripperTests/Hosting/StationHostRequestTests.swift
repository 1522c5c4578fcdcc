import Foundation
import Testing

@testable import Dripper

/// A wallet that answers its requests: what a payment service asks a host.
struct Wallet: Dripper {
  struct State: Equatable, Sendable, Codable { var balance = 0 }
  enum Action: Equatable, Sendable, Codable, ReplyingAction {
    typealias Reply = WalletReply
    case deposit(Int)
    case withdraw(Int)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deposit(let amount):
        state.balance += amount
        return .reply(.accepted(balance: state.balance))
      case .withdraw(let amount):
        guard state.balance >= amount else { return .reply(.refused("would overdraw")) }
        state.balance -= amount
        return .reply(.accepted(balance: state.balance))
      }
    }
  }
}

enum WalletReply: Equatable, Sendable, Codable {
  case accepted(balance: Int)
  case refused(String)
}

/// A host of wallets on a test clock, in memory or in `folder`.
private func wallets(
  clock: TestClock = TestClock(), folder: String? = nil, requests: RequestRetention = RequestRetention()
) throws -> StationHost<String, Wallet> {
  try StationHost(
    storage: folder.map { .folder($0, codec: .json) } ?? .inMemory,
    lifetime: HostLifetime(idleAfter: nil, time: .controlled(by: clock)), requests: requests
  ) { _ in
    Wallet.State()
  } dripper: { _ in
    Wallet()
  }
}

/// Issue 57: requests that get answers, once.
@Suite struct StationHostRequestTests {
  /// A request that was applied returns its receipt, whatever came after it: with a window of 4
  /// and 200 requests at once to one key, none throws, each is applied once. Before, some threw
  /// "left the key's window before its receipt was read" although applied.
  @Test(arguments: [false, true]) func anAppliedRequestAlwaysReturnsItsReceipt(inFolder: Bool) async throws {
    let scratch = ScratchDirectory()
    let host = try wallets(folder: inFolder ? scratch.path : nil, requests: RequestRetention(count: 4))
    let receipts = try await withThrowingTaskGroup(of: PourReceipt.self) { group in
      for number in 0..<200 {
        group.addTask { try await host.pour(.deposit(1), to: "alice", id: "r\(number)") }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(receipts.count == 200)
    #expect(Set(receipts.map(\.sequence)).count == 200)
    #expect(receipts.allSatisfy { !$0.duplicate })
    #expect(try await host.state(of: "alice").balance == 200)
    await host.close()
  }

  /// A feature answers a request with a value, which a retry gets again, not a new one: in
  /// memory, after a passivation, and in a folder after a restart (the reply read back from the
  /// key's snapshot).
  @Test(arguments: [false, true]) func aReplyIsRememberedWithItsRequest(inFolder: Bool) async throws {
    let scratch = ScratchDirectory()
    do {
      let host = try wallets(folder: inFolder ? scratch.path : nil)
      let deposit = try await host.ask(.deposit(10), to: "alice", id: "d1")
      #expect(
        deposit == Answer(receipt: PourReceipt(sequence: 1, duplicate: false), reply: .accepted(balance: 10)))
      let overdraw = try await host.ask(.withdraw(50), to: "alice", id: "w1")
      #expect(overdraw.reply == .refused("would overdraw"))
      _ = try await host.ask(.withdraw(3), to: "alice", id: "w2")
      await host.passivate("alice")
      let retry = try await host.ask(.deposit(10), to: "alice", id: "d1")
      #expect(
        retry == Answer(receipt: PourReceipt(sequence: 1, duplicate: true), reply: .accepted(balance: 10)))
      if !inFolder {
        #expect(try await host.ask(.withdraw(50), to: "alice", id: "w1").reply == .refused("would overdraw"))
        return
      }
      await host.close()
    }
    let host = try wallets(folder: scratch.path)
    let retry = try await host.ask(.withdraw(50), to: "alice", id: "w1")
    #expect(
      retry == Answer(receipt: PourReceipt(sequence: 2, duplicate: true), reply: .refused("would overdraw")))
    #expect(try await host.state(of: "alice").balance == 7)
    await host.close()
  }

  /// The same id with another action is refused, as a payment API answers a reused idempotency
  /// key with a 422, and nothing is applied; before, it was given the first receipt silently.
  @Test(arguments: [false, true]) func anIDReusedForAnotherActionIsRefused(inFolder: Bool) async throws {
    let scratch = ScratchDirectory()
    let host = try wallets(folder: inFolder ? scratch.path : nil)
    _ = try await host.pour(.deposit(10), to: "alice", id: "key-1")
    await #expect(throws: HostError.requestMismatch(key: "alice", id: "key-1")) {
      try await host.pour(.withdraw(10), to: "alice", id: "key-1")
    }
    #expect(try await host.state(of: "alice").balance == 10)
    #expect(try await host.pour(.deposit(10), to: "alice", id: "key-1").duplicate)
    await host.close()
  }

  /// A request's fingerprint in memory, chosen once for the action's type: a `Hashable` action
  /// by its hash, any other by its text. Equal actions agree, and others differ.
  @Test func aFingerprintTellsActionsApartWhetherOrNotTheyAreHashable() {
    enum Hashed: Hashable, Sendable { case deposit(Int) }
    let hashed = ActionFingerprint.function(for: Hashed.self)
    #expect(hashed(.deposit(10)) == hashed(.deposit(10)))
    #expect(hashed(.deposit(10)) != hashed(.deposit(11)))
    #expect(hashed(.deposit(10)) != 0)
    let dumped = ActionFingerprint.function(for: Wallet.Action.self)
    #expect(dumped(.deposit(10)) == dumped(.deposit(10)))
    #expect(dumped(.deposit(10)) != dumped(.withdraw(10)))
    #expect(dumped(.deposit(10)) != 0)
  }

  /// A request id is remembered for the retention's age, on the host's wall time: a retry within
  /// 24 hours gets the first receipt, one after is applied again.
  @Test func aRequestIDIsForgottenAfterItsAge() async throws {
    let clock = TestClock()
    let host = try wallets(clock: clock, requests: RequestRetention(count: 100, age: .seconds(24 * 3_600)))
    _ = try await host.pour(.deposit(10), to: "alice", id: "key-1")
    await clock.advance(by: .seconds(23 * 3_600))
    #expect(try await host.pour(.deposit(10), to: "alice", id: "key-1").duplicate)
    _ = try await host.pour(.deposit(1), to: "alice", id: "key-2")
    await clock.advance(by: .seconds(2 * 3_600))
    #expect(try await host.pour(.deposit(10), to: "alice", id: "key-1").duplicate == false)
    #expect(try await host.pour(.deposit(1), to: "alice", id: "key-2").duplicate)
    #expect(try await host.state(of: "alice").balance == 21)
    await host.close()
  }

  /// The window by age and count, alone: the oldest go first, by age or past the count.
  @Test func theWindowForgetsByAgeAndByCount() {
    var window = RequestWindow(retention: RequestRetention(count: 3, age: .seconds(100)))
    func entry(_ time: Double) -> RequestWindow.Entry {
      RequestWindow.Entry(sequence: 1, nonce: 1, fingerprint: 1, time: time, reply: nil)
    }
    window.insert("a", entry(0))
    window.insert("b", entry(50))
    window.insert("c", entry(60))
    window.insert("d", entry(70))
    #expect(window.ids == ["b", "c", "d"])
    #expect(window.entry("b", at: 149) != nil)
    #expect(window.entry("b", at: 151) == nil)
    window.insert("e", entry(155))
    #expect(window.ids == ["c", "d", "e"])
    window.insert("f", entry(165))
    #expect(window.ids == ["d", "e", "f"])
    window.insert("b", entry(300))
    #expect(window.ids == ["b"])
  }

  /// Under a `TestStation`, a reply is reported as something only a host keeps; the test harness
  /// records what a feature replies (see the DripperTesting tests).
  @Test func aReplyOutsideAHostIsADiagnostic() async {
    let reported = LockIsolated<[String]>([])
    let station = Station(initialState: Wallet.State()) {
      Wallet()
    } withDependencies: {
      $0.reporter = { diagnostic in reported.withValue { $0.append(diagnostic.message) } }
    }
    await station.pour(.deposit(1)).finish()
    #expect(
      reported.value == ["ignored a reply .accepted(balance: 1): replies need a StationHost to keep them"])
  }
}
