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

  typealias Hosted = HostedFeature<Feature>
  typealias KeyStation = Station<Hosted.State, Hosted.Action>
  typealias KeyJournal = DurableJournal<Hosted.State, Hosted.Action>

  /// A key's live Station, and its journal when it is kept in a folder.
  struct Resident: Sendable {
    let station: KeyStation
    let journal: KeyJournal?
  }

  /// What waits for a key that has no live Station: a pour, or a read of the Station.
  enum Waiting: Sendable {
    case pour(HostedAction<Action>, DeferredPour)
    case use(Promise<Result<KeyStation, HostError>>, pinning: Bool)
  }

  typealias Table = HostTable<Key, Resident, Hosted.State, Waiting>

  let table: Lock<Table>
  let storage: HostStorage<State, Action>.Kind
  let lifetime: HostLifetime
  let requestWindow: Int
  let observer: StationHostObserver<Key>
  let initialState: @Sendable (Key) -> State
  let makeFeature: @Sendable (Key) -> Feature
  let prepareDependencies: @Sendable (Key, inout DependencyValues) -> Void
  let reminders: HostReminders<Key>
  let activity: HostActivity
  let timer = Lock<Task<Void, Never>?>(nil)
  /// The executor of the host's own tasks when its clock is a test clock, which then waits for
  /// them (see ``restartTimer()``).
  let watcher: WatchedExecutor?
  let extraCounts = Lock<(recoveries: Int, closed: Bool)>((0, false))
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
  public init(
    storage: HostStorage<State, Action> = .inMemory, lifetime: HostLifetime = HostLifetime(),
    requestWindow: Int = 1_000, observer: StationHostObserver<Key> = StationHostObserver(),
    initialState: @escaping @Sendable (Key) -> State, dripper: @escaping @Sendable (Key) -> Feature,
    withDependencies prepareDependencies: @escaping @Sendable (Key, inout DependencyValues) -> Void = {
      _, _ in
    }
  ) throws(HostError) {
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
  @discardableResult
  public func pour(_ action: Action, to key: Key) -> PourTask {
    pour(.action(action), to: key).task
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
  public func pour(_ action: Action, to key: Key, id: String) async throws(HostError) -> PourReceipt {
    var random = SystemRandomNumberGenerator()
    let nonce: UInt64 = random.next()
    let (task, refusal) = pour(.request(id: id, nonce: nonce, action), to: key)
    if let refusal { throw refusal }
    guard let posted = await posted(task) else { throw failure(of: task, key: key) }
    _ = await posted.host.reduce(through: posted.number)
    guard let handler = posted.host as? StateHandler<Hosted.State, Hosted.Action> else {
      throw HostError.refused(key: key.stationKeyText, reason: "its Station is gone")
    }
    guard let entry = await handler.read(\Hosted.State.requests[id]) else {
      throw HostError.refused(
        key: key.stationKeyText, reason: "request \(id) left the key's window before its receipt was read")
    }
    return PourReceipt(sequence: entry.sequence, duplicate: entry.nonce != nonce)
  }

  /// Pours a hosted action; the task, and the failure when it was refused at once.
  func pour(_ action: HostedAction<Action>, to key: Key) -> (task: PourTask, failure: HostError?) {
    if extraCounts.withLock({ $0.closed }) {
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

  // MARK: - Reading and observing

  /// The key's state, once every action poured into it before this read has been reduced. A key
  /// not resident is activated to be read.
  ///
  /// - Throws: ``HostError`` when the key's storage failed, or the host is closed.
  public func state(of key: Key) async throws(HostError) -> State {
    let station = try await useStation(of: key, pinning: false)
    return await station.state.value
  }

  /// The key's states as they change, the latest when asked, as ``Station/states`` gives them. While
  /// the stream is read the key stays resident (it is not idle); it ends when the host closes.
  ///
  /// ```swift
  /// for await cart in host.states(of: "cart-7") { render(cart) }
  /// ```
  public func states(of key: Key) -> AsyncStream<State> {
    let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .bufferingNewest(1))
    let forwarding = Task { [self] in
      guard let station = try? await useStation(of: key, pinning: true) else { return continuation.finish() }
      defer { table.withLock { $0.unpin(key, at: activity.tick) } }
      for await state in station.states {
        continuation.yield(state.value)
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in forwarding.cancel() }
    return stream
  }

  /// Waits until the key's pours have been reduced and their effects have ended; returns at once
  /// for a key that is not resident (it has no effect running).
  public func finish(_ key: Key) async {
    guard let station = table.withLock({ $0.resident(key) })?.station else { return }
    await station.reducePending()
    await station.waitForEffectsToEnd()
  }

  /// Cancels every effect of the key, if it is resident.
  public func cancelEffects(of key: Key) {
    table.withLock { $0.resident(key) }?.station.cancelEffects()
  }

  /// What the host holds and has done, now.
  public var counts: HostCounts {
    let table = self.table.withLock { $0.counts }
    let (recoveries, _) = extraCounts.withLock { $0 }
    let reminders = self.reminders.counts
    var counts = HostCounts()
    counts.resident = table.resident
    counts.activating = table.activating
    counts.passivating = table.passivating
    counts.passive = table.passive
    counts.failed = table.failed
    counts.activations = table.activations
    counts.recoveries = recoveries
    counts.passivations = table.passivations
    counts.evictions = table.evictions
    counts.remindersPending = reminders.pending
    counts.remindersFired = reminders.fired
    return counts
  }

  /// The keys resident now, the most recently used first.
  public var residentKeys: [Key] {
    table.withLock { $0.residentKeys }
  }

  /// The key's Station, made if it is not resident, pinned (kept resident) if `pinning`.
  func useStation(of key: Key, pinning: Bool) async throws(HostError) -> KeyStation {
    if extraCounts.withLock({ $0.closed }) {
      throw .refused(key: key.stationKeyText, reason: "the host is closed")
    }
    let promise = Promise<Result<KeyStation, HostError>>()
    let decision = table.withLock { table -> Table.PourDecision in
      let decision = table.use(key, at: activity.tick, isIdle: Self.isIdle)
      switch decision {
      case .post(let resident):
        if pinning { _ = table.pin(key) }
        promise.fulfill(.success(resident.station))
      case .buffer, .activate:
        table.buffer(.use(promise, pinning: pinning), for: key)
      case .fail(let error):
        promise.fulfill(.failure(.storage(key: key.stationKeyText, error)))
      }
      return decision
    }
    if case .activate(let stored, let evicting) = decision {
      activate(key, from: stored)
      passivate(evicting, reason: .evicted)
    }
    guard let result = await promise.value else {
      throw .refused(key: key.stationKeyText, reason: "the read was cancelled")
    }
    return try result.get()
  }

  /// Makes the folder and opens its index of reminders.
  static func openIndex(of folder: FolderStorage<State, Action>) throws(HostError) -> DurableValue<
    ReminderIndex
  > {
    for path in [folder.path, folder.path + "/keys", folder.path + "/reminders"] {
      if let failure = AtomicFile.makeDirectory(path) {
        throw .refused(key: "", reason: "\(path): \(failure.reason)")
      }
    }
    let directory = folder.path + "/reminders/" + KeyFolder.name(of: folder.node)
    do {
      return try DurableValue(
        DurableJournal(directory: directory, snapshotEvery: 1_000, codec: ReminderIndex.codec),
        initialState: [:], feature: ReminderIndex())
    } catch {
      throw .refused(key: "", reason: "the host's reminders: \(error)")
    }
  }

  /// Whether a resident key has nothing to do: no action waiting, no effect.
  static func isIdle(_ resident: Resident) -> Bool {
    resident.station.hasNothingToDo
  }
}

extension Station {
  /// Whether no action waits in the mailbox and no effect runs or waits: what makes a host's key
  /// idle.
  var hasNothingToDo: Bool {
    guard let handler = rootHandler else { return true }
    return handler.mailbox.poured.load(ordering: .relaxed) == handler.taken.load(ordering: .relaxed)
      && handler.effects.snapshot.isIdle
  }
}
