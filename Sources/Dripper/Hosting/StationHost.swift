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
/// - **Once per request.** ``pour(_:to:id:)`` applies an action once per request id: a retry, after
///   a lost reply, a crash or a passivation, gets the first receipt and is not reduced again.
/// - **Reminders.** ``Effect/remind(_:at:id:)`` asks for an action at a wall-clock deadline, kept in
///   the key's state: the host pours it then, activating the key, even after a restart.
/// - **Failures stay with their key.** A key whose storage is corrupt, full or unreadable fails its
///   own pours (a ``HostError`` from ``pour(_:to:id:)``, a ``Diagnostic``), is left as it is on
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

  /// A key's live Station, and its journal when it is kept in a folder.
  @usableFromInline
  struct Resident: Sendable {
    @usableFromInline let station: KeyStation
    @usableFromInline let journal: KeyJournal?

    @usableFromInline
    init(station: KeyStation, journal: KeyJournal?) {
      self.station = station
      self.journal = journal
    }
  }

  /// What waits for a key that has no live Station: a pour, or a read of the Station.
  @usableFromInline
  enum Waiting: Sendable {
    case pour(HostedAction<Action>, DeferredPour)
    case use(Promise<Result<KeyStation, HostError>>, pinning: Bool)
  }

  @usableFromInline typealias Table = HostTable<Key, Resident, Hosted.State, Waiting>

  /// How a key's Station is made: in memory from a state, or recovered from its journal. Made
  /// where the host is made, where the feature's types are known, so that the Stations run
  /// specialized code.
  @usableFromInline
  struct StationMaker: Sendable {
    @usableFromInline let make: @Sendable (StationHost, Key, Hosted.State) -> KeyStation
    @usableFromInline let recover:
      @Sendable (StationHost, Key, KeyJournal, Hosted.State) throws(JournalError) -> KeyStation

    @usableFromInline
    init(
      make: @escaping @Sendable (StationHost, Key, Hosted.State) -> KeyStation,
      recover:
        @escaping @Sendable (StationHost, Key, KeyJournal, Hosted.State) throws(JournalError) -> KeyStation
    ) {
      self.make = make
      self.recover = recover
    }
  }

  @usableFromInline let table: Lock<Table>
  @usableFromInline let stations: StationMaker
  /// Whether the host is closed: pours are refused.
  @usableFromInline let isClosed = Atomic<Bool>(false)
  let storage: HostStorage<State, Action>.Kind
  let lifetime: HostLifetime
  let requestWindow: Int
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
  ///   - requestWindow: How many request ids each key remembers for ``pour(_:to:id:)``.
  ///   - observer: What to tell of the keys' lives (see ``StationHostObserver``).
  ///   - initialState: A key's state the first time it is used.
  ///   - dripper: The feature of a key.
  ///   - prepareDependencies: A key's dependencies, from those in force where the host is made.
  /// - Throws: ``HostError`` when the folder cannot be made, or its reminders read (another
  ///   process holds them: give each host sharing a folder its own `node`).
  @inlinable
  public convenience init(
    storage: HostStorage<State, Action> = .inMemory, lifetime: HostLifetime = HostLifetime(),
    requestWindow: Int = 1_000, observer: StationHostObserver<Key> = StationHostObserver(),
    initialState: @escaping @Sendable (Key) -> State, dripper: @escaping @Sendable (Key) -> Feature,
    withDependencies prepareDependencies: @escaping @Sendable (Key, inout DependencyValues) -> Void = {
      _, _ in
    }
  ) throws(HostError) {
    let stations = StationMaker(
      make: { host, key, state in
        let feature = host.hostedFeature(of: key)
        return Station(initialState: state) {
          feature
        } withDependencies: {
          host.prepare(&$0, for: key)
        }
      },
      recover: { host, key, journal, initial throws(JournalError) in
        let feature = host.hostedFeature(of: key)
        return try Station.recovering(from: journal, initialState: initial) {
          feature
        } withDependencies: {
          host.prepare(&$0, for: key)
        }
      })
    try self.init(
      storage: storage, lifetime: lifetime, requestWindow: requestWindow, observer: observer,
      initialState: initialState, dripper: dripper, withDependencies: prepareDependencies, stations: stations)
  }

  @usableFromInline
  init(
    storage: HostStorage<State, Action>, lifetime: HostLifetime, requestWindow: Int,
    observer: StationHostObserver<Key>, initialState: @escaping @Sendable (Key) -> State,
    dripper: @escaping @Sendable (Key) -> Feature,
    withDependencies prepareDependencies: @escaping @Sendable (Key, inout DependencyValues) -> Void,
    stations: StationMaker
  ) throws(HostError) {
    self.stations = stations
    self.storage = storage.kind
    self.lifetime = lifetime
    self.requestWindow = max(1, requestWindow)
    self.observer = observer
    self.initialState = initialState
    self.makeFeature = dripper
    self.prepareDependencies = prepareDependencies
    self.table = Lock(Table(maximumResident: lifetime.maximumResident))
    self.activity = HostActivity(start: lifetime.time.now())
    if let clock = lifetime.time.clock as? any EffectWatcher {
      let executor = WatchedExecutor()
      clock.watch(executor)
      watcher = executor
    } else {
      watcher = nil
    }
    switch storage.kind {
    case .memory:
      reminders = HostReminders(index: nil)
      hostedCodec = nil
      hostedSchema = nil
    case .folder(let folder):
      hostedCodec = HostedCodec.codec(folder.codec, requestWindow: self.requestWindow)
      hostedSchema = HostedCodec.schema(folder.schema, requestWindow: self.requestWindow)
      reminders = HostReminders(index: try Self.openIndex(of: folder))
    }
    reminders.wake.withLock { wake in wake = { [weak self] in self?.restartTimer() } }
    restartTimer()
  }

  deinit {
    timer.withLock { $0 }?.cancel()
  }

  // MARK: - Pouring

  /// Pours `action` into `key`'s Station, making it if the key is not resident: what
  /// ``Station/pour(_:)`` is for one Station.
  ///
  /// Never blocks and never suspends. Await the returned task for the reduction and every effect
  /// it started. A key whose storage failed does not reduce it: the task ends at once, and the
  /// failure is reported as a ``Diagnostic`` (``pour(_:to:id:)`` throws it instead).
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

  /// Pours `action` into `key` once per `id`, and returns after its reduction with its receipt:
  /// the number of the action in the key's history, and whether `id` had been applied before, in
  /// which case this pour was not reduced again.
  ///
  /// ```swift
  /// let receipt = try await host.pour(.withdraw(30), to: "alice", id: request.id)
  /// if receipt.duplicate { log.info("retry of \(request.id), applied as \(receipt)") }
  /// ```
  ///
  /// A service delivers at least once: a client that lost a reply sends again. The key remembers
  /// its last `requestWindow` request ids with their receipts, in its state, so a retry is known
  /// after a passivation or a crash too. It waits for the reduction, not the effects.
  ///
  /// - Throws: ``HostError/storage(key:_:)`` when the key's storage failed (nothing was reduced);
  ///   ``HostError/refused(key:reason:)`` when the host is closed.
  @inlinable
  public func pour(_ action: Action, to key: Key, id: String) async throws(HostError) -> PourReceipt {
    let nonce = nextNonce.wrappingAdd(1, ordering: .relaxed).oldValue
    // To a resident key, a post to its Station and a read of the receipt, specialized for the
    // feature's types; any other key the slow way, which activates it.
    let tick = activity.tick
    let posted = table.withLock { table in
      table.postIfResident(key, at: tick) { $0.station.pour(.request(id: id, nonce: nonce, action)) }
    }
    guard let posted else { return try await pourActivating(action, to: key, id: id, nonce: nonce) }
    guard let handler = posted.host as? StateHandler<Hosted.State, Hosted.Action> else {
      throw .refused(key: key.stationKeyText, reason: "its Station is gone")
    }
    // The read reduces every pour posted before it, this one too. A closure, not a key path: a
    // key path through a subscript is built anew each call, at the cost of a type lookup.
    guard let entry = await handler.read({ $0.requests[id] }) else { throw Self.leftWindow(key, id) }
    return PourReceipt(sequence: entry.sequence, duplicate: entry.nonce != nonce)
  }

  /// A request to a key that is not resident: activates it, then as ``pour(_:to:id:)``.
  @usableFromInline
  func pourActivating(_ action: Action, to key: Key, id: String, nonce: UInt64) async throws(HostError)
    -> PourReceipt
  {
    let (task, refusal) = pour(.request(id: id, nonce: nonce, action), to: key)
    if let refusal { throw refusal }
    guard let posted = await posted(task) else { throw failure(of: task, key: key) }
    guard let handler = posted.host as? StateHandler<Hosted.State, Hosted.Action> else {
      throw HostError.refused(key: key.stationKeyText, reason: "its Station is gone")
    }
    guard let entry = await handler.read({ $0.requests[id] }) else { throw Self.leftWindow(key, id) }
    return PourReceipt(sequence: entry.sequence, duplicate: entry.nonce != nonce)
  }

  /// The error of a request whose id left its key's window before its receipt was read: more
  /// requests than the window holds were made to the key in between.
  @usableFromInline
  static func leftWindow(_ key: Key, _ id: String) -> HostError {
    .refused(
      key: key.stationKeyText, reason: "request \(id) left the key's window before its receipt was read")
  }

  /// Pours a hosted action; the task, and the failure when it was refused at once.
  @usableFromInline
  func pour(_ action: HostedAction<Action>, to key: Key) -> (task: PourTask, failure: HostError?) {
    if isClosed.load(ordering: .relaxed) {
      let refusal = HostError.refused(key: key.stationKeyText, reason: "the host is closed")
      return (Self.failedTask(refusal), refusal)
    }
    let (task, decision) = table.withLock { table -> (PourTask, Table.PourDecision) in
      let decision = table.use(key, at: activity.tick, isIdle: Self.isIdle)
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

  /// The pour a task stands for on its key's Station: itself, or the pour a deferred one became;
  /// `nil` if its key failed.
  private func posted(_ task: PourTask) async -> PourTask? {
    guard let deferred = task.host as? DeferredPour else { return task }
    return await deferred.target()
  }

  /// Why a task's pour was never posted.
  private func failure(of task: PourTask, key: Key) -> HostError {
    (task.host as? DeferredPour)?.failure
      ?? .refused(key: key.stationKeyText, reason: "the host closed before its pour was reduced")
  }

  /// A task for a pour that was never posted: waiting on it ends at once.
  static func failedTask(_ failure: HostError? = nil) -> PourTask {
    let deferred = DeferredPour()
    deferred.failed(failure)
    return deferred.task
  }
}
