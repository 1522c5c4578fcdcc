public import Dripper

/// Why a ``DistributedStationHost`` could not do what a caller asked: `Codable`, so that it reaches
/// the caller whatever the actor system, typed.
public enum DistributedHostError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The key's storage failed on the node that hosts it: corrupt, full, unreadable. Nothing of it
  /// changed.
  case storage(key: String, JournalError)
  /// Another node holds the key (its journal is locked): a handover is under way, or two nodes
  /// disagree about who owns it. Ask the key's owner again once the membership settles.
  case heldElsewhere(key: String)
  /// The node refused the key: it is closing, or the key cannot be stored.
  case refused(key: String, reason: String)
  /// The caller speaks a later protocol version than this node (a node not yet upgraded): the call
  /// was not made.
  case unsupportedVersion(theirs: Int, ours: Int)

  /// The error of a local host.
  public init(_ error: HostError) {
    switch error {
    case .storage(let key, let journal) where journal.isHeldByAnotherProcess: self = .heldElsewhere(key: key)
    case .storage(let key, let journal): self = .storage(key: key, journal)
    case .refused(let key, let reason): self = .refused(key: key, reason: reason)
    }
  }

  /// The explanation, in one line.
  public var description: String {
    switch self {
    case .storage(let key, let error): "key \(key): \(error)"
    case .heldElsewhere(let key): "key \(key) is held by another node"
    case .refused(let key, let reason): "key \(key) refused: \(reason)"
    case .unsupportedVersion(let theirs, let ours):
      "a call of protocol version \(theirs) reached a node that speaks version \(ours) at most"
    }
  }
}
