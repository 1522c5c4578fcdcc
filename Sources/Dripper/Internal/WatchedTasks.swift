/// What a watched Station's executor knows of each task of its effects: which effect it works
/// for, whether it sleeps on a test clock, and whether the clock woke it and it still works.
///
/// Two kinds of task are known. The tasks the runtime starts (an effect's task, a debounce's or a
/// throttle window's, `withTimeout`'s operation and timer) are *tracked*: each tells when it begins
/// and ends. The tasks an effect starts itself (the children of a task group, an `async let`) are
/// seen only when they sleep on a test clock: nothing tells when they end, so what is known of
/// them is kept until their effect ends, and only ever makes the harness wait longer, never
/// decide sooner.
///
/// A pure state machine: its owner keeps it behind a lock and acts on what each event returns.
struct WatchedTasks {
  /// A task, by the hash of its `UnsafeCurrentTask`: unique among the tasks alive at once.
  typealias Key = Int

  struct Record {
    let slot: EffectSlotID
    let tracked: Bool
    var asleep = false
    /// The clock woke it, and it has neither slept on a clock again nor ended.
    var woken = false
    /// It waits for tracked children of its own (`withTimeout`'s group).
    var joining = false
  }

  private(set) var records: [Key: Record] = [:]
  private var keysOfSlot: [EffectSlotID: Set<Key>] = [:]
  /// Tracked tasks the clock woke that still work: the effects are not settled while there are any.
  private(set) var working = 0

  /// A tracked task began working for the effect in `slot`.
  mutating func began(_ key: Key, slot: EffectSlotID) {
    records[key] = Record(slot: slot, tracked: true)
    keysOfSlot[slot, default: []].insert(key)
  }

  /// A tracked task ended; `effectEnded` when it is its effect's own task, whose end is the end of
  /// every task the effect started. Returns whether the last working task stopped.
  mutating func ended(_ key: Key, effectEnded: Bool) -> Bool {
    var stopped = false
    if let record = records.removeValue(forKey: key) {
      stopped = stopWorking(record)
      keysOfSlot[record.slot]?.remove(key)
      if effectEnded { forget(slot: record.slot, &stopped) }
    }
    return stopped
  }

  /// A task of the effect in `slot` went to sleep on a test clock. Returns whether the last working
  /// task stopped.
  mutating func slept(_ key: Key, slot: EffectSlotID) -> Bool {
    guard var record = records[key] else {
      records[key] = Record(slot: slot, tracked: false, asleep: true)
      keysOfSlot[slot, default: []].insert(key)
      return false
    }
    let stopped = stopWorking(record)
    record.asleep = true
    record.woken = false
    records[key] = record
    return stopped
  }

  /// A task's sleep on a test clock is over: `woken` by the clock, or cancelled.
  mutating func awoke(_ key: Key, woken: Bool) {
    guard var record = records[key] else { return }
    record.asleep = false
    if woken, !record.woken {
      record.woken = true
      if record.tracked { working += 1 }
    }
    records[key] = record
  }

  /// Marks a task as waiting for its tracked children, or no longer.
  mutating func join(_ key: Key, _ joining: Bool) {
    records[key]?.joining = joining
  }

  /// Whether every task known for the effect in `slot` sleeps on a test clock, or waits for
  /// tracked children that do, and its own task is known: then only moving the clock can make it
  /// do anything.
  func waitsOnlyForTime(_ slot: EffectSlotID) -> Bool {
    guard let keys = keysOfSlot[slot], !keys.isEmpty else { return false }
    return keys.allSatisfy { key in
      guard let record = records[key] else { return true }
      return record.asleep || (record.tracked && record.joining)
    }
  }

  private mutating func stopWorking(_ record: Record) -> Bool {
    guard record.woken, record.tracked else { return false }
    working -= 1
    return working == 0
  }

  /// Forgets every task of an effect that ended: the children it started ended before it.
  private mutating func forget(slot: EffectSlotID, _ stopped: inout Bool) {
    guard let keys = keysOfSlot.removeValue(forKey: slot) else { return }
    for key in keys {
      guard let record = records[key], record.slot == slot else { continue }
      records[key] = nil
      if stopWorking(record) { stopped = true }
    }
  }
}
