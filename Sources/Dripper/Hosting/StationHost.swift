public import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One feature run for many keys — an account, an order, a session each — with a Station per key,
/// made when the key is used and closed when it is idle: Orleans' virtual actors, Akka's sharded
/// entities, for a `Dripper`.
///
/// ```swift
/// let host = try StationHost<String, Account>(
///   storage: .folder("data/accounts", codec: .json),
///   lifetime: HostLifetime(idleAfter: .seconds(60), maximumResident: 10_000)
/// ) { id in
///   Account.State(id: id)
/// } dripper: { _ in
///   Account()
/// }
/// host.pour(.deposit(100), to: "alice")                                   // like a Station's pour
/// let receipt = try await host.pour(.withdraw(30), to: "alice", id: requestID)  // once per id
/// let balance = try await host.state(of: "alice").balance
/// ```
///
/// - **A key is always there.** ``pour(_:to:)`` reaches the key's Station, making it on first use:
///   from its initial state, or from storage when the key was seen before. Concurrent first pours
///   share one activation, and a key's actions are reduced in the order they were poured, whatever
///   activations and passivations come between.
/// - **At most one Station per key.** A key activating or passivating holds its pours until it is
///   done. Across processes sharing a folder, each key's journal is locked: a second process is
///   refused that key, clearly, and never forks its history.
/// - **Idle keys go.** A key with nothing to do (no action waiting, no effect running, no observer)
///   for ``HostLifetime/idleAfter`` is passivated: a key kept in a folder writes a snapshot and
///   closes its journal; an in-memory one keeps its state value only. Past
///   ``HostLifetime/maximumResident``, the least recently used idle keys go first; a key that is
///   never idle stays, above the cap, until it is.
/// - **Once per request.** ``pour(_:to:id:effectsIn:)`` applies an action once per request id: a retry, after
///   a lost reply, a crash or a passivation, gets the first receipt and is not reduced again.
/// - **Reminders.** ``Effect/remind(_:at:id:)`` asks for an action at a wall-clock deadline, kept in
///   the key's state: the host pours it then, activating the key, even after a restart.
/// - **Failures stay with their key.** A key whose storage is corrupt, full or unreadable fails its
///   own pours (a ``HostError`` from ``pour(_:to:id:effectsIn:)``, a ``Diagnostic``), is left as it is on
///   disk, and is tried again after ``HostLifetime/retryFailedAfter``; every other key goes on.
///
/// See <doc:HostingManyStations> for the model, and how it maps to grains and entities.
public final class StationHost<Key: StationKey, Feature: Dripper>: Sendable {
  /// The state of one key.
  public typealias State = Feature.State
  /// An action of one key.
  public typealias Action = Feature.Action

  @usableFromInline typealias Hosted = HostedFeature<Feature>
  @usableFromInline typealias KeyStation = Station<Hosted.State, Hosted.Action>
  @usableFromInline typealias KeyJournal = DurableJournal<Hosted.State, Hosted.Action>

  /// A key's live Station, and, for a key kept in a folder or a store, the log its reductions
  /// record to and what writes its snapshots. An object: a pour to a resident key copies it out of
  /// the table, one retain.
  @usableFromInline
  final class Resident: Sendable {
    @usableFromInline let station: KeyStation
    @usableFromInline let log: KeyLog?
    /// Writes a snapshot of the key's state, the state after its entry `sequence`.
    let snapshot: (@Sendable (Hosted.State, UInt64) -> SnapshotOutcome)?

    init(
      station: KeyStation, log: KeyLog? = nil,
      snapshot: (@Sendable (Hosted.State, UInt64) -> SnapshotOutcome)? = nil
    ) {
      self.station = station
      self.log = log
      self.snapshot = snapshot
    }
  }

  /// What waits for a key that has no live Station: a pour, or a read of the Station.
  @usableFromInline
  enum Waiting: Sendable {
    case pour(HostedAction<Action>, DeferredPour)
    case use(Promise<Result<Resident, HostError>>, pinning: Bool)
  }

  @usableFromInline typealias Table = HostTable<Key, Resident, Hosted.State, Waiting>

  /// How a key's Station is made, and a key's journal replayed. Made where the host is made, where
  /// the feature's types are known, so that the Stations run specialized code.
  @usableFromInline
  struct StationMaker: Sendable {
    @usableFromInline let make:
      @Sendable (StationHost, Key, Hosted.State, HostedRecorder<State, Action>?) -> KeyStation
    @usableFromInline let replay:
      @Sendable (StationHost, Key, KeyJournal, Hosted.State) throws(JournalError) -> (Hosted.State, Journal)
    /// Replays a key read from a ``KeyStore``.
    @usableFromInline let replayStored:
      @Sendable (StationHost, Key, KeyJournal, StoredKey, Hosted.State) throws(JournalError) -> Hosted.State

    @usableFromInline
    init(
      make:
        @escaping @Sendable (StationHost, Key, Hosted.State, HostedRecorder<State, Action>?) -> KeyStation,
      replay:
        @escaping @Sendable (StationHost, Key, KeyJournal, Hosted.State) throws(JournalError) -> (
          Hosted.State, Journal
        ),
      replayStored:
        @escaping @Sendable (StationHost, Key, KeyJournal, StoredKey, Hosted.State) throws(JournalError) ->
        Hosted.State
    ) {
      self.make = make
      self.replay = replay
      self.replayStored = replayStored
    }
  }

  @usableFromInline let table: Lock<Table>
  @usableFromInline let stations: StationMaker
  /// Whether the host is closed: pours are refused.
  @usableFromInline let isClosed = Atomic<Bool>(false)
  let storage: HostStorage<State, Action>.Kind
  @usableFromInline let lifetime: HostLifetime
  @usableFromInline let requests: RequestRetention
  let observer: StationHostObserver<Key>
  let initialState: @Sendable (Key) -> State
  let makeFeature: @Sendable (Key) -> Feature
  let prepareDependencies: @Sendable (Key, inout DependencyValues) -> Void
  let reminders: HostReminders<Key>
  @usableFromInline let activity: HostActivity
  let timer = Lock<Task<Void, Never>?>(nil)
  /// The executor of the host's own tasks when its clock is a test clock, which then waits for
  /// them (see ``restartTimer()``).
  let watcher: WatchedExecutor?
  let recoveries = Atomic<Int>(0)
  /// Whether the timer has listed its store's reminders once.
  let pollsStoredReminders = Atomic<Bool>(false)
  /// Keys above the cap whose idleness the host waits for, to passivate them then.
  let awaitedIdle = Lock<Set<Key>>([])
  /// The nonces of this host's requests: a random start, one more each. Another host's, or a run's
  /// after a restart, start elsewhere, so a retry made through either is told from the first.
  @usableFromInline let nextNonce = Atomic<UInt64>(UInt64.random(in: .min ... .max))
  /// The envelope of a folder's keys, made once.
  let hostedCodec: JournalCodec<Hosted.State, Hosted.Action>?
  let hostedSchema: JournalSchema<Hosted.State, Hosted.Action>?

  /// A host of `dripper`'s feature for every key, each starting from `initialState(key)`.
  ///
  /// - Parameters:
  ///   - storage: In memory, or a folder (see ``HostStorage``).
  ///   - lifetime: When keys are passivated, and on which clock (see ``HostLifetime``).
  ///   - requests: How long each key remembers the request ids of ``pour(_:to:id:effectsIn:)``.
  ///   - observer: What to tell of the keys' lives (see ``StationHostObserver``).
  ///   - initialState: A key's state the first time it is used.
  ///   - dripper: The feature of a key.
  ///   - prepareDependencies: A key's dependencies, from those in force where the host is made.
  /// - Throws: ``HostError/hostStorage(_:)`` when the folder cannot be made, or its reminders read
  ///   (another process holds them: give each host sharing a folder its own `node`).
  @inlinable
  public convenience init(
    storage: HostStorage<State, Action> = .inMemory, lifetime: HostLifetime = HostLifetime(),
    requests: RequestRetention = RequestRetention(),
    observer: StationHostObserver<Key> = StationHostObserver(),
    initialState: @escaping @Sendable (Key) -> State, dripper: @escaping @Sendable (Key) -> Feature,
    withDependencies prepareDependencies: @escaping @Sendable (Key, inout DependencyValues) -> Void = {
      _, _ in
    }
  ) throws(HostError) {
    let stations = StationMaker(
      make: { host, key, state, recorder in
        let feature = host.hostedFeature(of: key, recorder: recorder)
        return Station(initialState: state) {
          feature
        } withDependencies: {
          host.prepare(&$0, for: key, log: recorder?.log)
        }
      },
      replay: { host, key, journal, initial throws(JournalError) in
        try journal.recover(
          initialState: { initial }, dripper: host.hostedFeature(of: key, recorder: nil, replaying: true),
          prepare: { host.prepare(&$0, for: key, log: nil) })
      },
      replayStored: { host, key, journal, stored, initial throws(JournalError) in
        try journal.recover(
          stored: stored, named: "key \(key.stationKeyText)", initialState: { initial },
          dripper: host.hostedFeature(of: key, recorder: nil, replaying: true),
          prepare: { host.prepare(&$0, for: key, log: nil) })
      })
    try self.init(
      storage: storage, lifetime: lifetime, requests: requests, observer: observer,
      initialState: initialState, dripper: dripper, withDependencies: prepareDependencies, stations: stations)
  }

  /// A host whose keys remember their last `requestWindow` request ids.
  @available(*, deprecated, message: "give 'requests: RequestRetention(count:age:)' instead")
  @inlinable
  public convenience init(
    storage: HostStorage<State, Action> = .inMemory, lifetime: HostLifetime = HostLifetime(),
    requestWindow: Int, observer: StationHostObserver<Key> = StationHostObserver(),
    initialState: @escaping @Sendable (Key) -> State, dripper: @escaping @Sendable (Key) -> Feature,
    withDependencies prepareDependencies: @escaping @Sendable (Key, inout DependencyValues) -> Void = {
      _, _ in
    }
  ) throws(HostError) {
    try self.init(
      storage: storage, lifetime: lifetime, requests: RequestRetention(count: requestWindow),
      observer: observer,
      initialState: initialState, dripper: dripper, withDependencies: prepareDependencies)
  }

  @usableFromInline
  init(
    storage: HostStorage<State, Action>, lifetime: HostLifetime, requests: RequestRetention,
    observer: StationHostObserver<Key>, initialState: @escaping @Sendable (Key) -> State,
    dripper: @escaping @Sendable (Key) -> Feature,
    withDependencies prepareDependencies: @escaping @Sendable (Key, inout DependencyValues) -> Void,
    stations: StationMaker
  ) throws(HostError) {
    self.stations = stations
    self.storage = storage.kind
    self.lifetime = lifetime
    self.requests = requests
    self.observer = observer
    self.initialState = initialState
    self.makeFeature = dripper
    self.prepareDependencies = prepareDependencies
    self.table = Lock(Table(maximumResident: lifetime.maximumResident))
    if let clock = lifetime.time.clock as? any EffectWatcher {
      let executor = WatchedExecutor()
      clock.watch(executor)
      watcher = executor
      activity = HostActivity(start: lifetime.time.now(), exactNow: lifetime.time.now)
    } else {
      watcher = nil
      activity = HostActivity(start: lifetime.time.now(), exactNow: nil)
    }
    switch storage.kind {
    case .memory:
      reminders = HostReminders(index: nil)
      hostedCodec = nil
      hostedSchema = nil
    case .folder(let folder):
      hostedCodec = HostedCodec.codec(folder.codec, requests: requests)
      hostedSchema = HostedCodec.schema(folder.schema, requests: requests)
      reminders = HostReminders(index: try Self.openIndex(of: folder))
    case .store(let store):
      hostedCodec = HostedCodec.codec(store.codec, requests: requests)
      hostedSchema = HostedCodec.schema(store.schema, requests: requests)
      reminders = HostReminders(index: nil)
    }
    reminders.wake.withLock { wake in wake = { [weak self] in self?.restartTimer() } }
    reminders.countsChanged.withLock { changed in changed = { [weak self] in self?.reportCounts() } }
    restartTimer()
  }

  deinit {
    timer.withLock { $0 }?.cancel()
  }

  // MARK: - Pouring

  /// Pours `action` into `key`'s Station, making it if the key is not resident: what
  /// ``Station/pour(_:)-(Action)`` is for one Station.
  ///
  /// Never blocks and never suspends. Await the returned task for the reduction and every effect
  /// it started: for a key kept in a folder, its effects start once its entry is synced. A pour
  /// whose key's storage failed is not kept: its task ends, and says why in
  /// ``PourTask/failure`` (``pour(_:to:id:effectsIn:)`` throws it instead).
  @inlinable
  @discardableResult
  public func pour(_ action: Action, to key: Key) -> PourTask {
    // To a resident key, the whole way is here, specialized for the feature's types: a lookup of
    // the key and a post to its Station, under the host's lock, in the order pours are made.
    // A closed host has no resident key: the slow way refuses the pour.
    let tick = activity.tick
    let posted = table.withLock { table in
      table.postIfResident(key, at: tick) { $0.station.pour(.action(action)) }
    }
    return posted ?? pour(.action(action), to: key).task
  }

  /// Pours `action` into `key` once per `id`, and returns once it is applied and durable, with its
  /// receipt: the number of the action in the key's history, and whether `id` had been applied
  /// before, in which case this pour was not reduced again.
  ///
  /// ```swift
  /// let receipt = try await host.pour(.withdraw(30), to: "alice", id: request.id)
  /// if receipt.duplicate { log.info("retry of \(request.id), applied as \(receipt)") }
  /// ```
  ///
  /// A service delivers at least once: a client that lost a reply sends again. The key remembers
  /// its request ids with their receipts (see ``RequestRetention``), in its state, so a retry is
  /// known after a passivation or a crash too. The receipt is taken from the reduction itself and
  /// returned once its entry is as durable as the storage's ``JournalDurability`` promises. It
  /// waits for the reduction, not the effects. Use ``ask(_:to:id:effectsIn:)`` for the feature's
  /// reply.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - key: The key it goes to.
  ///   - id: The request's id: a retry with the same id is applied once.
  ///   - scope: What the effects of the request's reduction run inside: the caller's tracing
  ///     context, say (see ``RequestScope``). `nil` runs them as any effect.
  /// - Throws: ``HostError/storage(key:_:)`` when the key's storage failed (nothing was kept);
  ///   ``HostError/requestMismatch(key:id:)`` when `id` was applied with another action;
  ///   ``HostError/closed`` when the host is closed.
  @inlinable
  public func pour(
    _ action: Action, to key: Key, id: String, effectsIn scope: RequestScope? = nil
  ) async throws(HostError) -> PourReceipt {
    try await request(action, to: key, id: id, effectsIn: scope).receipt
  }

  /// Pours a request and waits for its answer: the receipt, and the reply.
  @inlinable
  func request(_ action: Action, to key: Key, id: String, effectsIn scope: RequestScope? = nil)
    async throws(HostError) -> (
      receipt: PourReceipt, reply: HostedReply?
    )
  {
    let nonce = nextNonce.wrappingAdd(1, ordering: .relaxed).oldValue
    let ticket = RequestTicket(scope: scope)
    let outcome = ticket.outcome
    let request = HostedAction.request(
      HostedRequest(id: id, nonce: nonce, time: requestTime(), action: action, ticket: ticket))
    // To a resident key, a post to its Station, specialized for the feature's types; any other
    // key the slow way, which activates it.
    let tick = activity.tick
    let posted = table.withLock { table in
      table.postIfResident(key, at: tick) { $0.station.pourReducedByCaller(request) }
    }
    let task: PourTask
    if let posted {
      task = posted
    } else {
      let (slow, refusal) = pour(request, to: key)
      if let refusal { throw refusal }
      task = slow
    }
    // Reduced here, not at the drain task's next look: that look comes a timer's sleep later
    // (tens of microseconds), which every request waited for before.
    _ = await task.host.reduce(through: task.number)
    return try await answer(outcome, of: key, id: id)
  }

  /// The time of a request now: seconds since 1970 on the host's wall time.
  @usableFromInline
  func requestTime() -> Double {
    lifetime.time.now().timeIntervalSince1970
  }

  /// The answer to a request, once its entry is durable.
  @usableFromInline
  func answer(_ outcome: Promise<RequestTicket.Outcome>, of key: Key, id: String) async throws(HostError) -> (
    receipt: PourReceipt, reply: HostedReply?
  ) {
    let text = key.stationKeyText
    switch await outcome.value {
    case .applied(let receipt, let reply, let entry, let log)?:
      if let log, let error = await log.acknowledged(through: entry) { throw .storage(key: text, error) }
      return (receipt, reply)
    case .mismatch?:
      throw .requestMismatch(key: text, id: id)
    case .failed(let error)?:
      throw .storage(key: text, error)
    case .dropped?:
      throw .refused(key: text, reason: "request \(id) was not reduced: its Station ended first")
    case nil:
      throw .refused(
        key: text,
        reason: "the wait for request \(id) was cancelled; it may have been applied: retry with its id")
    }
  }

  /// Pours a hosted action; the task, and the failure when it was refused at once.
  @usableFromInline
  func pour(_ action: HostedAction<Action>, to key: Key) -> (task: PourTask, failure: HostError?) {
    if isClosed.load(ordering: .relaxed) {
      if case .request(let request) = action { request.ticket?.answer(.dropped) }
      return (Self.failedTask(.closed), .closed)
    }
    let (task, decision) = table.withLock { table -> (PourTask, Table.PourDecision) in
      let decision = use(key, in: &table)
      switch decision {
      case .post(let resident):
        return (resident.station.pour(action), decision)
      case .buffer, .activate:
        let deferred = DeferredPour()
        table.buffer(.pour(action, deferred), for: key)
        return (deferred.task, decision)
      case .fail(let error):
        return (Self.failedTask(.storage(key: key.stationKeyText, error)), decision)
      }
    }
    switch decision {
    case .post, .buffer:
      return (task, nil)
    case .activate(let stored, let evicting):
      activate(key, from: stored)
      passivate(evicting, reason: .evicted)
      return (task, nil)
    case .fail(let error):
      return (task, .storage(key: key.stationKeyText, error))
    }
  }

  /// A use of `key` under the host's lock: what to do with it (see ``HostTable/use(_:at:preciseNow:isIdle:)``).
  func use(_ key: Key, in table: inout Table) -> Table.PourDecision {
    table.use(
      key, at: activity.tick, preciseNow: { activity.tick(at: lifetime.time.now()) }, isIdle: Self.isIdle)
  }

  /// A task for a pour that was never posted: waiting on it ends at once.
  static func failedTask(_ failure: HostError? = nil) -> PourTask {
    let deferred = DeferredPour()
    deferred.failed(failure)
    return deferred.task
  }
}

extension StationHost where Action: ReplyingAction {
  /// Pours `action` into `key` once per `id`, and returns the feature's reply with the receipt,
  /// once the request is applied and durable: Akka's `ask`, an Orleans grain method's result.
  ///
  /// ```swift
  /// let answer = try await host.ask(.withdraw(30), to: "alice", id: request.idempotencyKey)
  /// switch answer.reply {
  /// case .accepted(let balance)?: return .ok(balance)
  /// case .refused(let reason)?: return .conflict(reason)      // 409
  /// case nil: return .internalServerError
  /// }
  /// ```
  ///
  /// The feature answers with ``Effect/reply(_:)`` in the reduction of the request. The reply is
  /// kept with the request id, so a retry gets the first reply, not a new one (see
  /// ``pour(_:to:id:effectsIn:)`` for the rest).
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - key: The key it goes to.
  ///   - id: The request's id: a retry with the same id gets the first reply.
  ///   - scope: What the effects of the request's reduction run inside (see ``RequestScope``).
  /// - Throws: as ``pour(_:to:id:effectsIn:)``.
  @inlinable
  public func ask(
    _ action: Action, to key: Key, id: String, effectsIn scope: RequestScope? = nil
  ) async throws(HostError) -> Answer<Action.Reply> {
    let (receipt, reply) = try await request(action, to: key, id: id, effectsIn: scope)
    return Answer(receipt: receipt, reply: reply?.decoded(as: Action.Reply.self))
  }
}
