import Distributed
import DistributedTestSupport
import Dripper
import DripperDistributed
import Foundation
import Testing

/// A purse that answers its requests.
struct Purse: Dripper {
  struct State: Equatable, Sendable, Codable { var balance = 0 }
  enum Action: Equatable, Sendable, Codable, ReplyingAction {
    typealias Reply = PurseReply
    case deposit(Int)
    case withdraw(Int)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deposit(let amount):
        state.balance += amount
        return .reply(.balance(state.balance))
      case .withdraw(let amount):
        guard state.balance >= amount else { return .reply(.refused("would overdraw")) }
        state.balance -= amount
        return .reply(.balance(state.balance))
      }
    }
  }
}

enum PurseReply: Equatable, Sendable, Codable {
  case balance(Int)
  case refused(String)
}

typealias PurseHost = DistributedStationHost<String, Purse.State, Purse.Action, JSONActorSystem>

@Suite struct DistributedAskTests {
  /// Issue 57: a request answered across the wire with the feature's reply, and a retry of its id
  /// with the first reply, on the serializing system.
  @Test func aRemoteRequestGetsItsReplyOnce() async throws {
    let network = TestNetwork()
    let (a, b) = (network.node("a"), network.node("b"))
    let local = try StationHost<String, Purse>(storage: .inMemory) { _ in
      Purse.State()
    } dripper: { _ in
      Purse()
    }
    let host = PurseHost(host: local, actorSystem: a)
    let remote = try PurseHost.resolve(id: host.id, using: b)
    let first = try await remote.ask(.deposit(50), to: "alice", id: "1")
    #expect(first.reply == .balance(50) && !first.receipt.duplicate)
    let retry = try await remote.ask(.deposit(50), to: "alice", id: "1")
    #expect(retry.reply == .balance(50) && retry.receipt.duplicate)
    #expect(try await remote.ask(.withdraw(80), to: "alice", id: "2").reply == .refused("would overdraw"))
    #expect(try await remote.state(of: "alice") == Purse.State(balance: 50))
    let types = PurseHost.messageTypes.map { "\($0)" }
    #expect(types.contains("\(EncodedAnswer.self)") && types.contains("\(PurseHost.self)"))
    #expect(types.contains("\(PurseReply.self)"))
    await local.close()
  }
}
