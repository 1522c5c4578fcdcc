import Synchronization

/// Stations that take one message together: VueFlux's dispatcher, for an event every open
/// feature must see ("log out", "the account changed").
///
/// ```swift
/// let session = StationGroup<SessionEvent>()
/// session.add(profile) { event in event == .loggedOut ? .clear : nil }
/// session.add(inbox) { event in event == .loggedOut ? .signedOut : nil }
/// …
/// await session.dispatch(.loggedOut).finish()
/// ```
///
/// Each Station turns the message into its own action, or ignores it (`nil`), and reduces it on
/// its own actor, in order with its other actions. The group holds its Stations weakly: a
/// released Station leaves it. A dispatch costs one pour per Station that takes the message, and
/// nothing for Stations in other groups.
public final class StationGroup<Message: Sendable>: Sendable {
  private struct Member {
    let deliver: @Sendable (Message) -> PourTask?
    let isGone: @Sendable () -> Bool
  }

  /// The members in the order they were added.
  private let members = Lock(Members())

  /// The members in the order they were added, each under its number. A removal leaves a hole,
  /// found through the number's position, and the holes are closed up once they are half the
  /// list: adding and removing a member cost O(1), amortized, however many there are (removing
  /// 20,000 one by one took 25 s when each removal searched the list).
  private struct Members {
    var next: UInt64 = 0
    var list: [Member?] = []
    var positions: [UInt64: Int] = [:]
    var holes = 0

    var count: Int { list.count - holes }

    mutating func add(_ member: Member) -> UInt64 {
      defer { next += 1 }
      positions[next] = list.count
      list.append(member)
      return next
    }

    mutating func remove(_ number: UInt64) {
      guard let position = positions.removeValue(forKey: number) else { return }
      list[position] = nil
      holes += 1
      if holes > list.count / 2 { closeUp() }
    }

    /// Removes the members that `isGone` says are gone.
    mutating func removeAll(where isGone: (Member) -> Bool) {
      for (number, position) in positions where list[position].map(isGone) == true {
        list[position] = nil
        positions[number] = nil
        holes += 1
      }
      if holes > list.count / 2 { closeUp() }
    }

    private mutating func closeUp() {
      var moved: [UInt64: Int] = [:]
      let byPosition = Dictionary(uniqueKeysWithValues: positions.map { ($1, $0) })
      var kept: [Member?] = []
      for (position, member) in list.enumerated() where member != nil {
        moved[byPosition[position]!] = kept.count
        kept.append(member)
      }
      list = kept
      positions = moved
      holes = 0
    }
  }

  /// An empty group.
  public init() {}

  /// Adds `station`, which takes each message `toAction` turns into one of its actions. Returns a
  /// membership that ``remove(_:)`` ends.
  @discardableResult
  public func add<State, Action>(
    _ station: Station<State, Action>, _ toAction: @escaping @Sendable (Message) -> Action?
  ) -> Membership {
    let member = Member(
      deliver: { [weak station] message in
        guard let station, let action = toAction(message) else { return nil }
        return station.pour(action)
      },
      isGone: { [weak station] in station == nil })
    return Membership(number: members.withLock { $0.add(member) })
  }

  /// Takes the Station of `membership` out of the group.
  public func remove(_ membership: Membership) {
    members.withLock { $0.remove(membership.number) }
  }

  /// How many Stations are in the group; released ones are counted until the next dispatch.
  public var count: Int { members.withLock { $0.count } }

  /// Pours `message` into every Station of the group that takes it, in the order they were added;
  /// the returned task finishes when all of them have reduced it and finished its effects.
  @discardableResult
  public func dispatch(_ message: Message) -> DispatchTask {
    let current = members.withLock { $0.list.compactMap { $0 } }
    var gone = false
    var tasks: [PourTask] = []
    for member in current {
      if let task = member.deliver(message) {
        tasks.append(task)
      } else if member.isGone() {
        gone = true
      }
    }
    if gone {
      members.withLock { $0.removeAll { $0.isGone() } }
    }
    return DispatchTask(tasks: tasks)
  }

  /// A Station's place in a ``StationGroup``.
  public struct Membership: Hashable, Sendable {
    let number: UInt64
  }
}

/// The pours of one ``StationGroup/dispatch(_:)``.
public struct DispatchTask: Sendable {
  /// The pour into each Station that took the message.
  public let tasks: [PourTask]

  /// Waits until every Station has reduced the message and its effects have finished.
  public func finish() async {
    for task in tasks { await task.finish() }
  }

  /// Cancels the effects the message started, in every Station.
  public func cancel() {
    for task in tasks { task.cancel() }
  }
}
