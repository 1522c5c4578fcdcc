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
    let storage: HostStorage<State, Action>
    if inStore {
      do {
        storage = .store(try FolderKeyStore(folder: directory), codec: .json, node: node)
      } catch {
        throw .hostStorage(error.message)
      }
    } else {
      storage = .folder(directory, codec: .json, node: node)
    }
    return try StationHost(storage: storage) { _ in
      State()
    } dripper: { _ in
      HostedTally()
    }
  }
}
