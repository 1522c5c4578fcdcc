/// Members under numbers, kept in an array that a publisher copies in O(1) to call them outside
/// its lock: adding and removing a member cost O(1), however many there are.
///
/// Removing swaps the last member into the removed one's place, so the order of members is not
/// the order they were added in.
@usableFromInline
struct MemberList<Member> {
  @usableFromInline private(set) var members: [Member] = []
  /// The number of each member, parallel to `members`.
  @usableFromInline var numbers: [UInt64] = []
  @usableFromInline var positions: [UInt64: Int] = [:]
  @usableFromInline var nextNumber: UInt64 = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { members.isEmpty }

  @inlinable
  var count: Int { members.count }

  /// Adds a member, returning its number.
  @inlinable
  mutating func add(_ member: Member) -> UInt64 {
    defer { nextNumber += 1 }
    positions[nextNumber] = members.count
    members.append(member)
    numbers.append(nextNumber)
    return nextNumber
  }

  /// Removes the member with `number`, returning it if it was there.
  @inlinable
  @discardableResult
  mutating func remove(_ number: UInt64) -> Member? {
    guard let position = positions.removeValue(forKey: number) else { return nil }
    let last = members.count - 1
    if position != last {
      members.swapAt(position, last)
      numbers.swapAt(position, last)
      positions[numbers[position]] = position
    }
    numbers.removeLast()
    return members.removeLast()
  }

  @inlinable
  subscript(number: UInt64) -> Member? {
    positions[number].map { members[$0] }
  }

  /// Removes every member, returning them.
  mutating func removeAll() -> [Member] {
    defer { self = MemberList() }
    return members
  }
}

extension MemberList: Sendable where Member: Sendable {}
