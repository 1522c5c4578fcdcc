#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Where a ``StationHost`` keeps its keys: in memory, or a folder on disk that survives restarts
/// and crashes.
///
/// ```swift
/// let host = StationHost<String, Cart>(storage: .folder("data/carts", codec: .json)) { _ in Cart.State() } dripper: { _ in Cart() }
/// ```
public struct HostStorage<State: Sendable, Action: Sendable>: Sendable {
  enum Kind: Sendable {
    case memory
    case folder(FolderStorage<State, Action>)
  }

  let kind: Kind

  /// Each key's state in memory: a passivated key keeps its state value, with no Station, until
  /// its next pour. Nothing survives the process.
  public static var inMemory: Self { Self(kind: .memory) }

  /// Each key a ``DurableJournal`` in `path`: its actions recorded as they are reduced, a snapshot
  /// written when it is passivated, its state recovered when it is next used, in this process or
  /// after a restart.
  ///
  /// - Parameters:
  ///   - path: The folder; keys go in `keys/`, two levels of folders from a hash of their text, and
  ///     the host's reminders in `reminders/NODE`.
  ///   - codec: How actions and states are written (`.json` for `Codable` ones).
  ///   - schema: The version of the types, and how to read older ones (see ``JournalSchema``).
  ///   - durability: When each key's entries are synced: what a crash may lose.
  ///   - snapshotEvery: How many actions between a key's snapshots while it is resident.
  ///   - node: This host's name among the hosts that share the folder (the nodes of a cluster): it
  ///     names the host's list of reminders, which one process at a time may hold.
  public static func folder(
    _ path: String, codec: JournalCodec<State, Action>, schema: JournalSchema<State, Action> = .initial,
    durability: JournalDurability = .everyAction, snapshotEvery: Int = 1_000, node: String = "local"
  ) -> Self {
    Self(
      kind: .folder(
        FolderStorage(
          path: path, codec: codec, schema: schema, durability: durability, snapshotEvery: snapshotEvery,
          node: node)))
  }
}

/// A host's folder.
struct FolderStorage<State: Sendable, Action: Sendable>: Sendable {
  let path: String
  let codec: JournalCodec<State, Action>
  let schema: JournalSchema<State, Action>
  let durability: JournalDurability
  let snapshotEvery: Int
  let node: String
}

/// When a ``StationHost`` passivates its keys, on which clock, and how often it retries a key
/// whose storage failed.
///
/// ```swift
/// HostLifetime(idleAfter: .seconds(60), maximumResident: 10_000)
/// HostLifetime(idleAfter: .seconds(60), time: .controlled(by: clock))   // in a test
/// ```
public struct HostLifetime: Sendable {
  /// How long a key stays resident with nothing to do (no action waiting, no effect running, no
  /// observer) before it is passivated; `nil` keeps idle keys until the cap needs room.
  public var idleAfter: Duration?
  /// How many keys may be resident before the least recently used idle ones are passivated to make
  /// room for another. A key that is never idle is never passivated: past the cap, busy keys stay,
  /// and go as soon as they are idle.
  public var maximumResident: Int
  /// The clock passivation and reminders are measured on, and the wall time reminders are set in.
  public var time: HostTime
  /// How long a key whose storage failed (corrupt, full, unreadable) fails its pours at once before
  /// its storage is read again.
  public var retryFailedAfter: Duration

  /// A lifetime.
  public init(
    idleAfter: Duration? = .seconds(300), maximumResident: Int = 10_000, time: HostTime = .live,
    retryFailedAfter: Duration = .seconds(5)
  ) {
    self.idleAfter = idleAfter
    self.maximumResident = max(1, maximumResident)
    self.time = time
    self.retryFailedAfter = retryFailedAfter
  }

  /// How many sweeps of the residents an idle period lasts: a key is passivated after at least
  /// `idleAfter` and at most a quarter more.
  static let sweepsPerIdlePeriod: UInt64 = 4

  /// The time between two sweeps.
  var sweepInterval: Duration {
    guard let idleAfter else { return retryFailedAfter }
    return max(idleAfter / Int(Self.sweepsPerIdlePeriod), .milliseconds(1))
  }
}

/// The time of a ``StationHost``: a clock to wait on (passivation, reminders) and the wall time, in
/// which reminders are set because it survives a restart.
public struct HostTime: Sendable {
  /// What the host waits on.
  public var clock: any Clock<Duration>
  /// The wall time now.
  public var now: @Sendable () -> Date

  /// A time of your own.
  public init(clock: any Clock<Duration>, now: @escaping @Sendable () -> Date) {
    self.clock = clock
    self.now = now
  }

  /// The continuous clock and the system's time.
  public static var live: Self { Self(clock: ContinuousClock(), now: { Date() }) }

  /// A test clock, and a wall time that starts at `start` and moves as the clock does: a test
  /// advances both with `clock.advance(by:)`.
  public static func controlled(
    by clock: TestClock, startingAt start: Date = Date(timeIntervalSince1970: 1_800_000_000)
  ) -> Self {
    Self(
      clock: clock,
      now: {
        let (seconds, attoseconds) = clock.now.offset.components
        return start.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
      })
  }
}

/// What a ``StationHost`` holds and has done: its counts, read at any time with
/// ``StationHost/counts`` and told to its observer as they change.
public struct HostCounts: Sendable, Hashable, Codable, CustomStringConvertible {
  /// Keys whose Station is live.
  public var resident = 0
  /// Keys whose Station is being made (recovered from storage).
  public var activating = 0
  /// Keys whose Station is being closed.
  public var passivating = 0
  /// Keys of an in-memory host kept as a state value, with no Station.
  public var passive = 0
  /// Keys whose storage failed, whose pours fail until they are retried.
  public var failed = 0
  /// Stations made, over the host's life.
  public var activations = 0
  /// Of those, the ones recovered from a key's storage on disk.
  public var recoveries = 0
  /// Stations closed.
  public var passivations = 0
  /// Of those, the ones closed to keep the residents under the cap.
  public var evictions = 0
  /// Keys with a reminder waiting.
  public var remindersPending = 0
  /// Reminders poured.
  public var remindersFired = 0

  /// A count of nothing.
  public init() {}

  /// `resident 12, activating 0, …`, in one line.
  public var description: String {
    "resident \(resident), activating \(activating), passivating \(passivating), passive \(passive), "
      + "failed \(failed), activations \(activations), recoveries \(recoveries), passivations \(passivations), "
      + "evictions \(evictions), reminders pending \(remindersPending), fired \(remindersFired)"
  }
}

/// Why a key was passivated.
public enum PassivationReason: String, Sendable, Hashable, Codable {
  /// It was idle for the lifetime's `idleAfter`.
  case idle
  /// The cap on residents needed its room: it was the least recently used idle key.
  case evicted
  /// ``StationHost/passivate(_:)`` asked for it.
  case requested
  /// The host was closing.
  case closing
}

/// What a ``StationHost`` tells of its keys' lives, as a ``DripperObserver`` tells of a Station's
/// actions: each callback optional, called on whatever thread the event happens on.
///
/// ```swift
/// StationHostObserver<String>(
///   passivated: { key, reason in log.debug("\(key) passivated: \(reason)") },
///   diagnostic: { key, diagnostic in log.warning("\(key): \(diagnostic)") })
/// ```
public struct StationHostObserver<Key: StationKey>: Sendable {
  /// A key's Station is live.
  public var activated: (@Sendable (_ key: Key) -> Void)?
  /// A key's Station closed.
  public var passivated: (@Sendable (_ key: Key, _ reason: PassivationReason) -> Void)?
  /// A key's storage could not be read or written: its pours fail until it is retried.
  public var failed: (@Sendable (_ key: Key, _ error: JournalError) -> Void)?
  /// A key's Station reported a diagnostic. Without this, diagnostics go to standard error.
  public var diagnostic: (@Sendable (_ key: Key, _ diagnostic: Diagnostic) -> Void)?
  /// The counts changed.
  public var counts: (@Sendable (_ counts: HostCounts) -> Void)?

  /// An observer of the callbacks given.
  public init(
    activated: (@Sendable (_ key: Key) -> Void)? = nil,
    passivated: (@Sendable (_ key: Key, _ reason: PassivationReason) -> Void)? = nil,
    failed: (@Sendable (_ key: Key, _ error: JournalError) -> Void)? = nil,
    diagnostic: (@Sendable (_ key: Key, _ diagnostic: Diagnostic) -> Void)? = nil,
    counts: (@Sendable (_ counts: HostCounts) -> Void)? = nil
  ) {
    self.activated = activated
    self.passivated = passivated
    self.failed = failed
    self.diagnostic = diagnostic
    self.counts = counts
  }
}

/// Why a ``StationHost`` could not do what it was asked, for one key: `Codable`, to travel back to
/// a caller.
public enum HostError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The key's storage could not be read or written: it is corrupt, the disk is full, another
  /// process holds it. Nothing of it was changed.
  case storage(key: String, JournalError)
  /// The host refused the key: it is closed, or the key's text is not one it can store.
  case refused(key: String, reason: String)

  /// The explanation, naming the key.
  public var description: String {
    switch self {
    case .storage(let key, let error): "key \(key): \(error)"
    case .refused(let key, let reason): "key \(key) refused: \(reason)"
    }
  }
}
