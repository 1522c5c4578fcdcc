#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The reminders a host knows of: each key's earliest deadline, in a heap the host's timer waits
/// on, and, for a host on disk, in a durable index, so that a restart finds the keys to wake
/// without reading every key.
///
/// The truth is in each key's state (and journal); the index holds hints: a deadline at or before
/// the key's earliest. A hint is made earlier, and synced, as the reduction that sets the reminder
/// runs, before that reduction is recorded: a crash never leaves a recorded reminder without its
/// hint. It is made later, or removed, only when the key passivates (its journal closed, so what it
/// says is on disk). A hint that is too early wakes a key for nothing, which then says what it
/// waits for next.
final class HostReminders<Key: StationKey>: Sendable {
  struct Due: Comparable, Sendable {
    let date: Date
    let order: UInt64
    let key: Key

    static func < (lhs: Due, rhs: Due) -> Bool { (lhs.date, lhs.order) < (rhs.date, rhs.order) }
    static func == (lhs: Due, rhs: Due) -> Bool { lhs.date == rhs.date && lhs.order == rhs.order }
  }

  private struct State {
    var heap = MinHeap<Due>()
    /// Each key's earliest deadline, as its state last said: what the heap's entries are checked
    /// against (an entry for another date is stale).
    var earliest: [Key: Date] = [:]
    var order: UInt64 = 0
    var fired = 0
  }

  private let state = Lock(State())
  private let index: DurableValue<ReminderIndex>?
  /// Called when a deadline earlier than the timer's comes: the host's timer waits again.
  let wake = Lock<(@Sendable () -> Void)?>(nil)
  /// Called when the keys waiting, or the reminders fired, change: the host's counts.
  let countsChanged = Lock<(@Sendable () -> Void)?>(nil)

  init(index: DurableValue<ReminderIndex>?) {
    self.index = index
    guard let index else { return }
    state.withLock { state in
      for (text, seconds) in index.value.sorted(by: { $0.key < $1.key }) {
        guard let key = Key(stationKeyText: text) else { continue }
        let date = Date(timeIntervalSince1970: seconds)
        state.earliest[key] = date
        state.heap.insert(Due(date: date, order: state.order, key: key))
        state.order += 1
      }
    }
  }

  /// A key's reminders changed as it reduced: `date` is its earliest deadline, or `nil`.
  func changed(_ key: Key, _ date: Date?) {
    let (wakes, counted) = state.withLock { state -> (Bool, Bool) in
      guard let date else {
        return (false, state.earliest.removeValue(forKey: key) != nil)
      }
      guard state.earliest[key] != date else { return (false, false) }
      let counted = state.earliest.updateValue(date, forKey: key) == nil
      let isFirst = state.heap.min.map { date < $0.date } ?? true
      state.heap.insert(Due(date: date, order: state.order, key: key))
      state.order += 1
      return (isFirst, counted)
    }
    if counted { countsChanged.withLock { $0 }?() }
    if let date, let index {
      let text = key.stationKeyText
      if let hint = index.value[text], hint <= date.timeIntervalSince1970 {
        // The index wakes the key early enough already.
      } else {
        index.apply(.hint(text, date.timeIntervalSince1970))
      }
    }
    if wakes { wake.withLock { $0 }?() }
  }

  /// The key passivated with `date` its earliest deadline: the index now says exactly that.
  func passivated(_ key: Key, earliest date: Date?) {
    guard let index else { return }
    let text = key.stationKeyText
    let hint = index.value[text]
    switch date {
    case nil where hint != nil: index.apply(.clear(text))
    case let date? where hint != date.timeIntervalSince1970:
      index.apply(.hint(text, date.timeIntervalSince1970))
    default: break
    }
  }

  /// The keys whose earliest deadline is due at `now`, each once; they are forgotten until their
  /// states say again what they wait for.
  func takeDue(at now: Date) -> [Key] {
    let keys = state.withLock { state in
      var keys: [Key] = []
      while let first = state.heap.min, first.date <= now {
        _ = state.heap.removeMin()
        guard state.earliest[first.key] == first.date else { continue }
        state.earliest[first.key] = nil
        keys.append(first.key)
      }
      return keys
    }
    if !keys.isEmpty { countsChanged.withLock { $0 }?() }
    return keys
  }

  /// A key poured `count` reminders that fell due.
  func fired(_ count: Int) {
    guard count > 0 else { return }
    state.withLock { $0.fired += count }
    countsChanged.withLock { $0 }?()
  }

  /// A key whose reminders could not be poured (its storage failed): tried again at `date`.
  func retry(_ key: Key, at date: Date) {
    changed(key, date)
  }

  /// The earliest deadline waiting, stale entries dropped.
  var nextDeadline: Date? {
    state.withLock { state in
      while let first = state.heap.min, state.earliest[first.key] != first.date { _ = state.heap.removeMin() }
      return state.heap.min?.date
    }
  }

  /// Keys with a reminder waiting, and the reminders poured so far.
  var counts: (pending: Int, fired: Int) {
    state.withLock { state in (state.earliest.count, state.fired) }
  }

  /// Closes the index.
  func close() -> JournalError? {
    index?.close()
  }
}

/// A host's index of reminders: each key's text and the earliest deadline to wake it at, in
/// seconds since 1970. A feature reduced synchronously and kept in a ``DurableJournal``.
struct ReminderIndex: Dripper {
  typealias State = [String: Double]
  enum Action: Sendable, Equatable {
    case hint(String, Double)
    case clear(String)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .hint(let key, let seconds): state[key] = seconds
    case .clear(let key): state[key] = nil
    }
    return .none
  }

  /// One line an action (`h SECONDS KEY`, `c KEY`), a line a key in a snapshot (`SECONDS KEY`),
  /// keys escaped as a journal escapes actions.
  static var codec: JournalCodec<State, Action> {
    JournalCodec(
      encodeAction: { action in
        switch action {
        case .hint(let key, let seconds): "h \(seconds) \(JournalLine.escape(key))"
        case .clear(let key): "c \(JournalLine.escape(key))"
        }
      },
      decodeAction: { text in
        let fields = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        if fields.count == 3, fields[0] == "h", let seconds = Double(fields[1]),
          let key = JournalLine.unescape(Array(fields[2].utf8)[...])
        {
          return .hint(key, seconds)
        }
        if fields.count >= 2, fields[0] == "c",
          let key = JournalLine.unescape(Array(text.utf8.dropFirst(2))[...])
        {
          return .clear(key)
        }
        throw JournalError("not a line of a host's reminders: \(text)")
      },
      encodeState: { state in
        state.sorted { $0.key < $1.key }.map { "\($0.value) \(JournalLine.escape($0.key))" }.joined(
          separator: "\n")
      },
      decodeState: { text in
        var state: State = [:]
        for line in text.split(separator: "\n") {
          let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
          guard fields.count == 2, let seconds = Double(fields[0]),
            let key = JournalLine.unescape(Array(fields[1].utf8)[...])
          else { throw JournalError("not a line of a host's reminders: \(line)") }
          state[key] = seconds
        }
        return state
      })
  }
}

/// A value kept in a durable journal and changed synchronously, under a lock: each change recorded
/// (and, with ``JournalDurability/everyAction``, synced) before `apply` returns.
final class DurableValue<Feature: Dripper>: Sendable {
  private struct Held {
    var value: Feature.State
    let reduce: @Sendable (inout Feature.State, Feature.Action) -> Effect<Feature.Action>
  }

  private let held: Lock<Held>
  private let durable: DurableJournal<Feature.State, Feature.Action>

  init(
    _ durable: DurableJournal<Feature.State, Feature.Action>, initialState: Feature.State, feature: Feature
  )
    throws(JournalError)
  {
    let (value, journal) = try durable.recover(
      initialState: { initialState }, dripper: feature, prepare: { _ in })
    held = Lock(Held(value: value, reduce: durable.recording(feature, to: journal)._build().reduce))
    self.durable = durable
  }

  var value: Feature.State { held.withLock { $0.value } }

  /// Reduces `action` and records it.
  func apply(_ action: Feature.Action) {
    held.withLock { held in _ = held.reduce(&held.value, action) }
  }

  /// The error of the last write, until one succeeds.
  var writeFailure: JournalError? { durable.writeFailure }

  func close() -> JournalError? {
    do {
      try durable.close()
      return nil
    } catch {
      return error
    }
  }
}
