import Dripper
import Foundation

/// The nodes of one process and the faults between them: a ``Wire`` that hands each encoded call
/// to its node's system, and can drop a reply after the call ran, delay calls (in any order), or
/// kill a node.
public final class TestNetwork: Wire {
  private struct State {
    /// Held weakly: each system holds this network as its wire, and a strong reference back made
    /// a cycle that LeakSanitizer reported (every node of every test leaked).
    var nodes: [String: WeakSystem] = [:]
    var killed: Set<String> = []
    /// Calls to these nodes run, and their replies are lost: how many more.
    var repliesToDrop: [String: Int] = [:]
    /// Calls to these nodes wait up to this long first, a random time each: they arrive in any
    /// order.
    var delays: [String: Duration] = [:]
    var calls = 0
  }

  private let state = Lock(State())

  private struct WeakSystem {
    weak var system: JSONActorSystem?
  }

  /// Makes one.
  public init() {}

  /// A node on this network.
  public func node(_ name: String) -> JSONActorSystem {
    let system = JSONActorSystem(node: name, wire: self)
    state.withLock { $0.nodes[name] = WeakSystem(system: system) }
    return system
  }

  /// Calls to and from `node` fail from now on, as if its process had died.
  public func kill(_ node: String) {
    state.withLock { _ = $0.killed.insert(node) }
  }

  /// The next `count` calls to `node` run there, and their replies are lost.
  public func dropReplies(from node: String, count: Int = 1) {
    state.withLock { $0.repliesToDrop[node, default: 0] += count }
  }

  /// Calls to `node` wait up to `delay` each, a random time: they overtake each other.
  public func delay(_ node: String, upTo delay: Duration) {
    state.withLock { $0.delays[node] = delay }
  }

  /// How many calls have crossed the network.
  public var calls: Int { state.withLock { $0.calls } }

  /// Hands the call to its node and returns its reply, with the faults set.
  public func deliver(_ call: [UInt8], from node: String, to target: String) async throws -> [UInt8] {
    let (system, delay) = try state.withLock { state -> (JSONActorSystem, Duration?) in
      guard !state.killed.contains(node) else { throw NetworkFailure.unreachable(node) }
      guard !state.killed.contains(target), let system = state.nodes[target]?.system else {
        throw NetworkFailure.unreachable(target)
      }
      state.calls += 1
      return (system, state.delays[target])
    }
    if let delay {
      let nanoseconds =
        Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
      try await Task.sleep(for: .nanoseconds(Int64.random(in: 0...max(0, nanoseconds))))
    }
    let reply = await system.handle(call)
    let dropped = state.withLock { state -> Bool in
      guard let count = state.repliesToDrop[target], count > 0 else { return state.killed.contains(target) }
      state.repliesToDrop[target] = count - 1
      return true
    }
    if dropped { throw NetworkFailure.replyLost(target) }
    return reply
  }
}

/// What the test network does to a call.
public enum NetworkFailure: Error, Equatable, Codable, Sendable {
  /// The node is dead: the call was not made.
  case unreachable(String)
  /// The call ran, and its reply was lost on the way back.
  case replyLost(String)
}
