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

  /// A host of tallies in `directory`, as node `node`: in a host's folder, or, `inStore`, in a
  /// ``FolderKeyStore`` there.
  public static func host(at directory: String, node: String, inStore: Bool = false) throws(HostError)
    -> StationHost<String, HostedTally>
  {
    try StationHost(storage: .json(in: directory, node: node, inStore: inStore)) { _ in
      State()
    } dripper: { _ in
      HostedTally()
    }
  }
}

extension HostStorage where State: Codable, Action: Codable {
  /// JSON in `directory`, as node `node`: a host's own folder, or, `inStore`, a ``FolderKeyStore``
  /// there — the two storages the child processes' tests run against.
  public static func json(in directory: String, node: String, inStore: Bool) throws(HostError) -> Self {
    guard inStore else { return .folder(directory, codec: .json, node: node) }
    do {
      return .store(try FolderKeyStore(folder: directory), codec: .json, node: node)
    } catch {
      throw .hostStorage(error.message)
    }
  }
}
