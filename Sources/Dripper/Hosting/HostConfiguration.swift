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
    case store(StoreStorage<State, Action>)
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
  ///
  /// The folder and its parents are made if missing. A key's own folder is made when it first
  /// records an action: reading a key never written creates nothing. What a key acknowledges (a
  /// receipt, a reply, a read, the start of an effect) waits for its entries to be durable: see
  /// ``JournalDurability``. Replays are checked: see ``checkingReplays(every:onDivergence:)``.
  public static func folder(
    _ path: String, codec: JournalCodec<State, Action>, schema: JournalSchema<State, Action> = .initial,
    durability: JournalDurability = .everyAction, snapshotEvery: Int = 1_000, node: String = "local"
  ) -> Self {
    Self(
      kind: .folder(
        FolderStorage(
          path: path, codec: codec, schema: schema, durability: durability, snapshotEvery: snapshotEvery,
          node: node, digest: ReplayCheck(every: 100, policy: .fail))))
  }

  /// Each key in `store`, which several hosts can share (a database the nodes of a cluster reach):
  /// its actions written as they are reduced, acknowledged once the store says they are durable,
  /// a snapshot every `snapshotEvery` actions and when it passivates; its state recovered when it
  /// is next used, on this node or another.
  ///
  /// ```swift
  /// storage: .store(PostgresKeyStore(client: client), codec: .json, node: "node-a")
  /// ```
  ///
  /// A key is claimed as it activates (see ``KeyStore``): a host that activates a key another
  /// host holds takes it, and the other's next write is refused, its key failing with an error
  /// that ``JournalError/isHeldByAnotherProcess``. Place keys so that each has one host (a
  /// `HostRouter`), and the claim fences what placement gets wrong.
  ///
  /// - Parameters:
  ///   - store: Where keys are kept.
  ///   - codec: How actions and states are written (`.json` for `Codable` ones).
  ///   - schema: The version of the types, and how to read older ones (see ``JournalSchema``).
  ///   - durability: When a key's entries are written: what a crash may lose. With
  ///     ``JournalDurability/everyAction``, each is acknowledged once written (keys writing at once
  ///     share the store's writes).
  ///   - snapshotEvery: How many actions between a key's snapshots while it is resident.
  ///   - node: The name this host claims keys under.
  ///   - owns: Which keys' reminders this host fires when no host holds them (their node died, or
  ///     they passivated with a reminder): the keys a router places here. Every key, by default.
  public static func store(
    _ store: some KeyStore, codec: JournalCodec<State, Action>,
    schema: JournalSchema<State, Action> = .initial,
    durability: JournalDurability = .everyAction, snapshotEvery: Int = 1_000, node: String = "local",
    owns: @escaping @Sendable (_ key: String) -> Bool = { _ in true }
  ) -> Self {
    Self(
      kind: .store(
        StoreStorage(
          store: store, codec: codec, schema: schema, durability: durability, snapshotEvery: snapshotEvery,
          node: node, owns: owns, digest: ReplayCheck(every: 100, policy: .fail))))
  }

  /// This storage, with a digest of each key's state recorded every `every` actions and checked
  /// when a key's journal is replayed, and what a replay that reaches another state does.
  ///
  /// ```swift
  /// .folder("data/wallets", codec: .json).checkingReplays(every: 100, onDivergence: .fail)   // the default
  /// ```
  ///
  /// A key's recovery reduces the actions recorded since its last snapshot with the feature now
  /// deployed. If a deploy changed a rule those actions went through (a withdrawal limit), the
  /// replay can reach another state than the one the key acknowledged: the digest says so, and
  /// the key fails (``ReplayDivergencePolicy/fail``) or goes on with a ``Diagnostic``
  /// (``ReplayDivergencePolicy/report``). The digest hashes the state's fields as a test failure
  /// shows them, the elements of its sets and dictionaries in any order, so it is the same in every
  /// process; it is checked only
  /// for entries recorded under the schema version now deployed (a deploy that declares a new
  /// ``JournalSchema`` version says the change is meant). `every: 0` records none.
  public func checkingReplays(every: Int, onDivergence policy: ReplayDivergencePolicy) -> Self {
    let check = ReplayCheck(every: max(0, every), policy: policy)
    switch kind {
    case .memory:
      return self
    case .folder(var folder):
      folder.digest = check
      return Self(kind: .folder(folder))
    case .store(var store):
      store.digest = check
      return Self(kind: .store(store))
    }
  }
}

/// What a ``StationHost`` does when a key's replay reaches another state than the one its journal
/// recorded (see ``HostStorage/checkingReplays(every:onDivergence:)``).
public enum ReplayDivergencePolicy: Sendable, Hashable {
  /// The key fails: its pours fail with a ``HostError/storage(key:_:)`` that says so, and a
  /// ``Diagnostic`` shows the entry and the difference; its files are left as they are. Run the
  /// version that recorded them until it has snapshotted the key (``StationHost/close()``
  /// snapshots every resident key), or choose ``report`` to accept the replay.
  case fail
  /// The key goes on with the state the replay reached, and a ``Diagnostic`` says where it
  /// differed.
  case report
}

/// A host's folder.
struct FolderStorage<State: Sendable, Action: Sendable>: Sendable {
  let path: String
  let codec: JournalCodec<State, Action>
  let schema: JournalSchema<State, Action>
  let durability: JournalDurability
  let snapshotEvery: Int
  let node: String
  var digest: ReplayCheck
}

/// A host's ``KeyStore``.
struct StoreStorage<State: Sendable, Action: Sendable>: Sendable {
  let store: any KeyStore
  let codec: JournalCodec<State, Action>
  let schema: JournalSchema<State, Action>
  let durability: JournalDurability
  let snapshotEvery: Int
  let node: String
  let owns: @Sendable (String) -> Bool
  var digest: ReplayCheck
  /// Where the host's reading of the store's due reminders goes on at its next sweep.
  let reminderCursor = ReminderCursor()
}

/// How a folder's or a store's keys record what they reduce.
struct Recording<State: Sendable, Action: Sendable>: Sendable {
  let codec: JournalCodec<State, Action>
  let snapshotEvery: Int
  let digest: ReplayCheck
}

extension FolderStorage {
  var recording: Recording<State, Action> {
    Recording(codec: codec, snapshotEvery: snapshotEvery, digest: digest)
  }
}

extension StoreStorage {
  var recording: Recording<State, Action> {
    Recording(codec: codec, snapshotEvery: snapshotEvery, digest: digest)
  }
}

/// How a folder's replays are checked.
struct ReplayCheck: Sendable {
  /// Every how many actions a digest of the state is recorded; 0 for none.
  let every: Int
  let policy: ReplayDivergencePolicy

  /// The digest of a hosted key's state: of the feature's state (see `StateDigest`).
  func hash<State, Action>() -> StateHash<HostedState<State, Action>>? {
    guard every > 0 else { return nil }
    return StateHash { StateDigest.of($0.value) }
  }

  /// The key's failure, if the policy fails it for `divergence`.
  func refusal(of divergence: ReplayDivergence, in path: String) -> JournalError? {
    guard policy == .fail else { return nil }
    return JournalError(
      "\(path): the replay of entry \(divergence.sequence) (\(divergence.action)) reached another state than "
        + "the one recorded: the feature deployed reduces it otherwise. The key is left as it is; run the "
        + "version that recorded it, or accept the replay with checkingReplays(onDivergence: .report)")
  }
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
  ///
  /// On a ``TestClock`` (``HostTime/controlled(by:startingAt:)``) a key is passivated at its
  /// deadline exactly. On another clock, a key's last use is read from the host's coarse clock,
  /// which its timer moves, and the key goes between `idleAfter` and a quarter more after it.
  public var idleAfter: Duration?
  /// How many keys may be resident before the least recently used idle ones are passivated to make
  /// room for another. A key that is never idle is never passivated: past the cap, busy keys stay,
  /// and go as soon as they are idle (the host waits for their effects to end).
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
  /// Of those, the ones closed to keep the residents under the cap: never more than
  /// ``passivations``, since a key is counted once it is closed.
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
  /// process holds it. What it did not acknowledge was not kept; the key is read again from disk
  /// after ``HostLifetime/retryFailedAfter``.
  case storage(key: String, JournalError)
  /// The host refused the key: the key's text is not one it can store, or the request's wait was
  /// given up.
  case refused(key: String, reason: String)
  /// The request id was applied to the key before with another action: a client reused an
  /// idempotency key for another request (what a payment API answers with a 422). Nothing was
  /// applied.
  case requestMismatch(key: String, id: String)
  /// The host is closed, or closing: it takes no more pours.
  case closed
  /// The host's own storage cannot be used: its folder cannot be made or read, or another process
  /// holds its reminders.
  case hostStorage(String)

  /// The explanation: of the key, or of the host.
  public var description: String {
    switch self {
    case .storage(let key, let error): "key \(key): \(error)"
    case .refused(let key, let reason): "key \(key) refused: \(reason)"
    case .requestMismatch(let key, let id):
      "key \(key): request \(id) was applied before with another action; a new request needs a new id"
    case .closed: "the host is closed: it takes no more pours"
    case .hostStorage(let reason): "the host's storage: \(reason)"
    }
  }
}

/// What tells a pour into a key kept in a folder that its storage lost it (see
/// ``PourTask/failure``): a dependency of the key's Station.
@usableFromInline
struct HostedPours: Sendable {
  let failure: @Sendable (UInt64) -> HostError?
  /// Returns once the pour's entries are durable, as its key's storage promises.
  let acknowledged: @Sendable (UInt64) async -> Void

  /// The Station's, if it is a host's key kept in a folder.
  @usableFromInline
  static func of(_ values: DependencyValues) -> HostedPours? {
    values[HostedPoursKey.self]
  }
}

enum HostedPoursKey: DependencyKey {
  static var liveValue: HostedPours? { nil }
  static var testValue: HostedPours? { nil }
}
