public import Distributed
public import Dripper

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Which host owns a key, among the hosts a membership listing offers: rendezvous
/// (highest-random-weight) hashing, so that a node joining or leaving moves only the keys it must.
///
/// ```swift
/// var router = HostRouter(hosts: listing)           // from ClusterSystem's receptionist, say
/// let owner = router.owner(of: "cart-7")!
/// let receipt = try await owner.pour(.add(item), to: "cart-7", id: request.id)
/// ```
///
/// Each key is given to the host whose weight for it is highest: a hash of the key's text and the
/// host's id as it travels — its JSON encoding, keys sorted — never as it prints. Every node that
/// sees the same hosts picks the same owner, with nothing to share but the listing; a host that
/// leaves gives its keys to the others, each to its next-best host, and a host that joins takes
/// from each of the others only the keys it now weighs highest. (`ClusterSystem` prints a local
/// actor's id without its node and a remote one with it: hashing the text split the keys between
/// nodes that disagreed on two thirds of them.)
///
/// A router is `Codable` when its hosts are: a node can hand its view of the hosts to another
/// (``DistributedStationHost/release(keysNotOwnedBy:)`` is a distributed call).
public struct HostRouter<Host: DistributedActor>: Sendable where Host.ID: Encodable {
  /// The hosts, and the hash of each one's id, taken once.
  private var members: [(host: Host, seed: UInt64)]

  /// A router over `hosts`.
  public init(hosts: some Sequence<Host>) {
    members = []
    update(hosts)
  }

  /// The hosts now.
  public var hosts: [Host] { members.map(\.host) }

  /// Takes the hosts a new listing offers; returns whether any changed.
  @discardableResult
  public mutating func update(_ hosts: some Sequence<Host>) -> Bool {
    var seen = Set<Host.ID>()
    let new: [(host: Host, seed: UInt64)] = hosts.filter { seen.insert($0.id).inserted }.map {
      (host: $0, seed: Self.hash(Self.placementText(of: $0.id), seed: 0))
    }
    let changed = Set(new.map(\.host.id)) != Set(members.map(\.host.id))
    members = new.sorted { $0.seed < $1.seed }
    return changed
  }

  /// The host that owns `key`, or `nil` with no host.
  public func owner<Key: StationKey>(of key: Key) -> Host? {
    let text = key.stationKeyText
    var best: (host: Host, weight: UInt64)?
    for member in members {
      let weight = Self.hash(text, seed: member.seed)
      if best == nil || weight > best!.weight { best = (member.host, weight) }
    }
    return best?.host
  }

  /// An id as it travels: its JSON encoding with its keys sorted, the same on every node that
  /// holds it, local or remote (an id that cannot be encoded falls back to its description).
  static func placementText(of id: Host.ID) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let data = try? encoder.encode(id) else { return "\(id)" }
    return String(decoding: data, as: UTF8.self)
  }

  /// A 64-bit hash of `text` from `seed`, the same in every process: FNV-1a over the bytes, then
  /// mixed as MurmurHash3's finalizer does, so that close texts and seeds get unrelated weights.
  static func hash(_ text: String, seed: UInt64) -> UInt64 {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
    for byte in text.utf8 {
      value ^= UInt64(byte)
      value &*= 0x0000_0100_0000_01b3
    }
    value ^= value >> 33
    value &*= 0xff51_afd7_ed55_8ccd
    value ^= value >> 33
    value &*= 0xc4ce_b9fe_1a85_ec53
    value ^= value >> 33
    return value
  }
}

extension HostRouter: Codable where Host: Codable {
  /// A router over the hosts `decoder` lists.
  public init(from decoder: any Decoder) throws {
    self.init(hosts: try [Host](from: decoder))
  }

  /// Lists the hosts.
  public func encode(to encoder: any Encoder) throws {
    try hosts.encode(to: encoder)
  }
}
