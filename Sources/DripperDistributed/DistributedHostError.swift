public import Dripper

/// Why a ``DistributedStationHost`` could not do what a caller asked: `Codable`, so that it reaches
/// the caller whatever the actor system, typed.
public enum DistributedHostError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The key's storage failed on the node that hosts it: corrupt, full, unreadable. Nothing of it
  /// changed.
  case storage(key: String, JournalError)
  /// Another node holds the key (its journal is locked, or it claimed the key in a shared
  /// `KeyStore` since this node did): a handover is under way, or two nodes disagree about who
  /// owns it. Ask the key's owner again once the membership settles.
  case heldElsewhere(key: String)
  /// The node refused the key: it is closing, or the key cannot be stored.
  case refused(key: String, reason: String)
  /// The caller speaks a later protocol version than this node (a node not yet upgraded): the call
  /// was not made.
  case unsupportedVersion(theirs: Int, ours: Int)
  /// The request id was applied to the key before with another action: nothing was applied.
  case requestMismatch(key: String, id: String)
  /// The node's host is closed, or closing: it takes no more pours. Ask the key's next owner.
  case closed
  /// The node's host cannot use its own storage.
  case unavailable(String)

  /// The error of a local host.
  public init(_ error: HostError) {
    switch error {
    case .storage(let key, let journal) where journal.isHeldByAnotherProcess: self = .heldElsewhere(key: key)
    case .storage(let key, let journal): self = .storage(key: key, journal)
    case .refused(let key, let reason): self = .refused(key: key, reason: reason)
    case .requestMismatch(let key, let id): self = .requestMismatch(key: key, id: id)
    case .closed: self = .closed
    case .hostStorage(let reason): self = .unavailable(reason)
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
    case .requestMismatch(let key, let id):
      "key \(key): request \(id) was applied before with another action; a new request needs a new id"
    case .closed: "the node's host is closed: it takes no more pours"
    case .unavailable(let reason): "the node's host cannot use its storage: \(reason)"
    }
  }
}
