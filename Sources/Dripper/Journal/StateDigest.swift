#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A digest of any value, the same in every process: what a host's key records of its state every
/// so many actions, and checks as its journal is replayed (see
/// ``HostStorage/checkingReplays(every:onDivergence:)``).
///
/// It walks the value as ``StateHash/dump`` renders it — fields by their labels, an enum's case and
/// payload, elements in order — but hashes as it goes, without building text or naming types, at a
/// fraction of the cost. A set's or a dictionary's elements are combined in an order-free way, so
/// that equal values digest alike whatever order this process's hashing keeps them in.
enum StateDigest {
  static func of(_ value: Any) -> UInt64 {
    var hash = FNV1a()
    var visited: Set<ObjectIdentifier> = []
    add(value, to: &hash, depth: 0, visited: &visited)
    return hash.value
  }

  private static func add(
    _ value: Any, to hash: inout FNV1a, depth: Int, visited: inout Set<ObjectIdentifier>
  ) {
    guard depth < 32 else { return mark(0xff, &hash) }
    switch value {
    case let number as Int: return add(UInt64(bitPattern: Int64(number)), tag: 1, &hash)
    case let flag as Bool: return add(flag ? 1 : 0, tag: 2, &hash)
    case let text as String: return add(text, tag: 3, &hash)
    case let number as Double: return add(number.bitPattern, tag: 4, &hash)
    case let number as UInt64: return add(number, tag: 5, &hash)
    case let number as Int64: return add(UInt64(bitPattern: number), tag: 6, &hash)
    case let id as UUID: return add(id.uuidString, tag: 7, &hash)
    case let date as Date: return add(date.timeIntervalSince1970.bitPattern, tag: 8, &hash)
    case let text as Substring: return add(String(text), tag: 3, &hash)
    case is any Numeric, is Duration, is Character, is URL, is Data:
      return add(String(describing: value), tag: 9, &hash)
    default: break
    }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return mark(10, &hash) }
      mark(11, &hash)
      add(wrapped, to: &hash, depth: depth + 1, visited: &visited)
    case .enum:
      mark(12, &hash)
      guard let payload = mirror.children.first else { return add(String(describing: value), tag: 13, &hash) }
      add(payload.label ?? "", tag: 13, &hash)
      add(payload.value, to: &hash, depth: depth + 1, visited: &visited)
    case .set, .dictionary:
      // Order-free: each element's own digest, summed.
      var sum: UInt64 = 0
      for child in mirror.children {
        var element = FNV1a()
        if let label = child.label { add(label, tag: 14, &element) }
        add(child.value, to: &element, depth: depth + 1, visited: &visited)
        sum &+= element.value
      }
      add(sum, tag: 15, &hash)
    case .class:
      let identity = ObjectIdentifier(value as AnyObject)
      guard visited.insert(identity).inserted else { return mark(16, &hash) }
      defer { visited.remove(identity) }
      fields(of: mirror, to: &hash, depth: depth, visited: &visited)
    default:
      if mirror.children.isEmpty { return add(String(describing: value), tag: 17, &hash) }
      fields(of: mirror, to: &hash, depth: depth, visited: &visited)
    }
  }

  private static func fields(
    of mirror: Mirror, to hash: inout FNV1a, depth: Int, visited: inout Set<ObjectIdentifier>
  ) {
    mark(18, &hash)
    for child in mirror.children {
      if let label = child.label { add(label, tag: 19, &hash) }
      add(child.value, to: &hash, depth: depth + 1, visited: &visited)
    }
    mark(20, &hash)
  }

  private static func mark(_ tag: UInt8, _ hash: inout FNV1a) {
    hash.add(CollectionOfOne(tag))
  }

  private static func add(_ number: UInt64, tag: UInt8, _ hash: inout FNV1a) {
    mark(tag, &hash)
    withUnsafeBytes(of: number.littleEndian) { hash.add($0) }
  }

  private static func add(_ text: String, tag: UInt8, _ hash: inout FNV1a) {
    mark(tag, &hash)
    add(UInt64(text.utf8.count), tag: 0, &hash)
    hash.add(text.utf8)
  }
}
