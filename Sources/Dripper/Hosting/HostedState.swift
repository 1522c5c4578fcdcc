#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A key's state as its host keeps it: the feature's state, the number of actions it has reduced,
/// the requests it has applied lately with their answers, and its reminders. All of it is recorded
/// and recovered, so that a retry after a crash is still known, and a reminder still fires.
@usableFromInline
struct HostedState<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline var value: State
  /// The actions the key has reduced: its journal's sequence number.
  @usableFromInline var sequence: UInt64 = 0
  @usableFromInline var requests: RequestWindow
  @usableFromInline var reminders = ReminderTable<Action>()

  @usableFromInline
  init(value: State, requests: RequestRetention) {
    self.value = value
    self.requests = RequestWindow(retention: requests)
  }
}

extension HostedState: WrapsFeatureState {
  var featureState: Any { value }
}

/// A reminder a key has set, waiting for its deadline.
@usableFromInline
struct PendingReminder<Action: Sendable>: Sendable {
  @usableFromInline var deadline: Date
  @usableFromInline var action: Action
}

/// A key's reminders by id, and their deadlines in a heap: the earliest in O(1), a reminder set,
/// replaced or cancelled in O(log n) (amortized: a replaced or cancelled one stays in the heap,
/// stale, until it reaches the top or the stale ones outnumber the live).
@usableFromInline
struct ReminderTable<Action: Sendable>: Sendable {
  struct Due: Comparable, Sendable {
    var deadline: Date
    var id: String
    /// Which setting of the id this is: an entry of an earlier one is stale.
    var generation: UInt64

    static func < (lhs: Due, rhs: Due) -> Bool {
      (lhs.deadline, lhs.id, lhs.generation) < (rhs.deadline, rhs.id, rhs.generation)
    }
  }

  private(set) var byID: [String: (reminder: PendingReminder<Action>, generation: UInt64)] = [:]
  private var heap = MinHeap<Due>()
  private var generations: UInt64 = 0

  var isEmpty: Bool { byID.isEmpty }
  var count: Int { byID.count }

  subscript(id: String) -> PendingReminder<Action>? { byID[id]?.reminder }

  /// Sets reminder `id`, replacing one of the same id.
  mutating func set(_ id: String, _ reminder: PendingReminder<Action>) {
    generations += 1
    byID[id] = (reminder, generations)
    heap.insert(Due(deadline: reminder.deadline, id: id, generation: generations))
    compactIfStale()
  }

  mutating func cancel(_ id: String) {
    guard byID.removeValue(forKey: id) != nil else { return }
    compactIfStale()
  }

  /// The earliest deadline. The heap's top is always live (see ``dropStaleTop()``).
  var earliest: Date? { heap.min?.deadline }

  /// How many entries the heap holds, stale ones included.
  var entriesInHeap: Int { heap.count }

  /// Removes and returns the reminders due at `now`, earliest first (ties by id).
  mutating func takeDue(at now: Date) -> [(id: String, reminder: PendingReminder<Action>)] {
    var due: [(id: String, reminder: PendingReminder<Action>)] = []
    while let top = heap.min, top.deadline <= now {
      _ = heap.removeMin()
      guard let (reminder, generation) = byID[top.id], generation == top.generation else { continue }
      byID[top.id] = nil
      due.append((top.id, reminder))
    }
    dropStaleTop()
    return due
  }

  private func isLive(_ due: Due) -> Bool { byID[due.id]?.generation == due.generation }

  /// Drops stale entries from the top, so that ``earliest`` reads the top alone.
  private mutating func dropStaleTop() {
    while let top = heap.min, !isLive(top) { _ = heap.removeMin() }
  }

  private mutating func compactIfStale() {
    dropStaleTop()
    if heap.count > 64, heap.count > 2 * byID.count {
      let live = byID
      heap.filter { live[$0.id]?.generation == $0.generation }
    }
  }

  /// The reminders, by id.
  var sorted: [(id: String, reminder: PendingReminder<Action>)] {
    byID.sorted { $0.key < $1.key }.map { ($0.key, $0.value.reminder) }
  }
}

/// How long a key remembers the requests it applied (see ``StationHost/pour(_:to:id:effectsIn:)``): the last
/// `count` of them, each for at most `age`.
///
/// ```swift
/// RequestRetention(count: 1_000, age: .seconds(24 * 3_600))   // the default
/// ```
///
/// Payment APIs keep an idempotency key 24 hours (Stripe) and answer a retry within that time with
/// the first response; past it, or past `count` newer requests to the key, the id is forgotten and
/// a retry is applied again. The age is measured on the host's wall time, from the request's own
/// time, so that a replay forgets what the first run forgot.
public struct RequestRetention: Sendable, Hashable {
  /// The most request ids a key remembers.
  public var count: Int
  /// How long a request id is remembered; `nil` for as long as `count` allows.
  public var age: Duration?

  /// Remembers the last `count` request ids, each for at most `age`.
  public init(count: Int = 1_000, age: Duration? = .seconds(24 * 3_600)) {
    self.count = max(1, count)
    self.age = age
  }
}

/// The request ids a key has applied lately, each with its receipt and answer: the last `count`, each
/// for at most `age`, the oldest forgotten first.
@usableFromInline
struct RequestWindow: Sendable {
  @usableFromInline
  struct Entry: Sendable {
    /// The number of the action the request was applied as.
    @usableFromInline var sequence: UInt64
    /// Who made the first request: a retry has another, and is told it was a duplicate.
    @usableFromInline var nonce: UInt64
    /// A hash of the action: a retry with another action is refused. 0 when unknown (recorded by
    /// a Dripper that did not keep it).
    @usableFromInline var fingerprint: UInt64
    /// When the request was made, in seconds since 1970 on the host's wall time.
    @usableFromInline var time: Double
    /// What the feature answered.
    @usableFromInline var reply: HostedReply?
  }

  let retention: RequestRetention
  private(set) var entries: [String: Entry] = [:]
  /// The ids in the order they were applied, from `head`, each with its entry's time: a later
  /// entry of the same id (applied again once forgotten) leaves the earlier one here, stale.
  private var order: [(id: String, time: Double)] = []
  private var head = 0

  init(retention: RequestRetention) {
    self.retention = retention
  }

  /// The entry of `id`, if it is in the window at `time`.
  @usableFromInline
  func entry(_ id: String, at time: Double) -> Entry? {
    guard let entry = entries[id] else { return nil }
    if let age = retention.age, entry.time < time - age.seconds { return nil }
    return entry
  }

  /// Adds `id`, forgetting the ids older than the retention's age and, past its count, the oldest.
  @usableFromInline
  mutating func insert(_ id: String, _ entry: Entry) {
    if let age = retention.age {
      let cutoff = entry.time - age.seconds
      while head < order.count, order[head].time < cutoff { forgetOldest() }
    }
    entries[id] = entry
    order.append((id, entry.time))
    while entries.count > retention.count { forgetOldest() }
    if head >= 64, head * 2 >= order.count {
      order.removeFirst(head)
      head = 0
    }
  }

  private mutating func forgetOldest() {
    let (id, time) = order[head]
    head += 1
    if entries[id]?.time == time { entries[id] = nil }
  }

  /// Forgets every entry's fingerprint: their actions were recorded in an older schema's text.
  mutating func forgetFingerprints() {
    for id in entries.keys { entries[id]?.fingerprint = 0 }
  }

  /// The ids, oldest first.
  var ids: [String] {
    order[head...].compactMap { entries[$0.id]?.time == $0.time ? $0.id : nil }
  }

  /// How many ids the key remembers.
  var count: Int { entries.count }
}

/// What a feature answered a request with: the value its reduction gave, or, recovered from a
/// snapshot, its text until it is asked for as a type.
@usableFromInline
enum HostedReply: Sendable {
  case value(any Sendable)
  case text(String)

  /// The answer as a `Reply`: the value, or its text decoded as JSON; `nil` if it is neither.
  @usableFromInline
  func decoded<Reply: Decodable & Sendable>(as type: Reply.Type) -> Reply? {
    switch self {
    case .value(let value): value as? Reply
    case .text(let text): try? JSONDecoder().decode(Reply.self, from: Data(text.utf8))
    }
  }

  /// The answer as text, for a snapshot: JSON for a value, which ``ReplyingAction`` makes
  /// `Encodable`.
  var text: String? {
    switch self {
    case .text(let text): return text
    case .value(let value):
      guard let encodable = value as? any Encodable,
        let data = try? JournalJSON.encoder.encode(encodable)
      else { return nil }
      return String(decoding: data, as: UTF8.self)
    }
  }
}
