public import Dripper

/// A count per key: the feature the host's crash test runs for a thousand keys.
public struct HostedTally: Dripper {
  /// How many requests the key applied.
  public struct State: Equatable, Sendable, Codable {
    /// The requests applied.
    public var count = 0

    /// A tally of none.
    public init() {}
  }

  /// Counts one request.
  public enum Action: Equatable, Sendable, Codable {
    /// One more.
    case add
  }

  /// A tally.
  public init() {}

  /// Counts.
  public var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count += 1
      return .none
    }
  }

  /// A host of tallies in `directory`, as node `node`.
  public static func host(at directory: String, node: String) throws(HostError) -> StationHost<
    String, HostedTally
  > {
    try StationHost(storage: .folder(directory, codec: .json, node: node)) { _ in
      State()
    } dripper: { _ in
      HostedTally()
    }
  }
}
