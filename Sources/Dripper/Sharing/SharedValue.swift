public import Synchronization

/// The source of one value many features read and write — a setting, a session, a list of
/// meetings: what a ``Shared`` in a feature's state refers to, TCA's shared storage.
///
/// ```swift
/// let meetings = SharedValue(IdentifiedArrayOf<Meeting>(), persistence: .file(at: path, encode: …, decode: …))
/// let station = Station(initialState: App.State(meetings: Shared(meetings))) { App() }
/// ```
///
/// The value lives here, behind a lock, once: every ``Shared`` made from it, in any Station's
/// state, reads and writes this one value. A write is atomic (``Shared/withLock(_:)``), and each
/// Station that holds the value republishes its state to its observers when another writes it.
/// Writing a value equal to the current one does nothing.
///
/// Persistence: in memory (``SharedPersistence/inMemory``, the default), or a file
/// (``SharedPersistence/file(at:encode:decode:)``), loaded when the value is made — a file that
/// cannot be read or decoded is not loaded over the initial value, and ``loadFailure`` says why —
/// and written after each change, off the actors, atomically (a temporary file renamed over the
/// target), the newest value last. ``flush()`` waits for the writes. A change another process
/// makes to the file becomes the value, and the Stations that hold it republish their states; two
/// processes writing the file at once: the last writer wins.
public final class SharedValue<Value: Equatable & Sendable>: Sendable {
  @usableFromInline
  struct State {
    @usableFromInline var value: Value
    @usableFromInline var version: UInt64 = 0
    /// The Stations that hold the value, by number: told when another writes it.
    @usableFromInline var holders: [UInt64: StationSharing] = [:]
    /// The streams of its changes (``SharedValue/changes()``), by number.
    @usableFromInline var watchers: [UInt64: AsyncStream<Value>.Continuation] = [:]
    var nextWatcher: UInt64 = 0

    /// Tells the streams of changes the new value, in the order of the writes (under the lock).
    @usableFromInline
    func tellWatchers() {
      for watcher in watchers.values { watcher.yield(value) }
    }

    init(value: Value) {
      self.value = value
    }

    /// Adds and removes the Stations that came to hold the value, or let go of it, during a write.
    @usableFromInline
    mutating func apply(_ changes: [(holder: StationSharing, holds: Bool)]) {
      for change in changes {
        holders[change.holder.station] = change.holds ? change.holder : nil
      }
    }
  }

  @usableFromInline let state: Lock<State>
  @usableFromInline let saver: SharedSaver<Value>?
  /// What notices another process's changes to the persisted value, if it is a file.
  private let watching = Lock<SharedWatch?>(nil)
  /// The Station that noted the value last: a Station noting it again skips its lock.
  @usableFromInline let lastNotedBy = Atomic<UInt64>(0)
  /// Why the persisted value was not loaded, when there was one that could not be: the value
  /// started as the initial value instead.
  public let loadFailure: String?

  /// A value starting as `initial`, or as what `persistence` loads.
  public init(_ initial: Value, persistence: SharedPersistence<Value> = .inMemory) {
    var value = initial
    var failure: String?
    if let load = persistence.load {
      switch load() {
      case .success(let loaded?): value = loaded
      case .success(nil): break
      case .failure(let error): failure = error.message
      }
    }
    state = Lock(State(value: value))
    loadFailure = failure
    saver = persistence.save.map { SharedSaver(save: $0) }
    if let watch = persistence.watch {
      let watch = watch { [weak self] value in self?.adopt(value) ?? [] }
      watching.withLock { $0 = watch }
    }
  }

  /// Takes a value another process wrote to the persisted file; returns the Stations that hold the
  /// value, to republish their states. A write of an older value, waiting or about to be made, is
  /// dropped, so that the file and the value agree.
  private func adopt(_ value: Value) -> [StationSharing] {
    state.withLock { state -> [StationSharing] in
      guard value != state.value else { return [] }
      state.value = value
      state.version &+= 1
      state.tellWatchers()
      saver?.supersede(by: state.version)
      return Array(state.holders.values)
    }
  }

  /// The current value.
  ///
  /// Read inside a write to this value on the same thread (`$list.withLock { $0.remove(id:
  /// state.item.id) }`, where `item` is derived from `list`), it is the value as the write's lock
  /// holds it, before the write's change; the lock is not taken again.
  @inlinable
  public var value: Value {
    if let held = HeldShares.find(self) {
      return held.pointee.value.assumingMemoryBound(to: Value.self).pointee
    }
    return state.withLock { $0.value }
  }

  /// Sets the value: every Station that holds it republishes its state.
  public func set(_ value: Value) {
    modify { $0 = value }
  }

  /// Waits until every change has been persisted, then looks at the persisted file once, so that
  /// a value another writer left there since is the value; returns the last write's error, if it
  /// failed.
  ///
  /// Two writers of one file (two processes) that both flush end holding what the file holds: the
  /// last write to land.
  @discardableResult
  public func flush() async -> SharedPersistenceError? {
    let error = await saver?.flush()
    lookAtPersistedFile()
    return error
  }

  /// Looks at the persisted file now, as the watch does when the file changes: a value another
  /// writer left there becomes the value. Tests call it to adopt at a moment of their choosing,
  /// not whenever the watch's thread runs.
  package func lookAtPersistedFile() {
    watching.withLock { $0 }?.check()
  }

  /// Changes the value in place, atomically, and returns what `body` returns; if the value changed,
  /// hands it to the persistence and tells the Stations that hold it, but the writer, after
  /// releasing the lock.
  ///
  /// The persistence is handed the value under the lock, with its version: two writers reach the
  /// disk in the order they wrote, and the newest value is the one left there.
  ///
  /// A write inside a write to the same value, on one thread, is refused with a ``Diagnostic``
  /// (a test failure under a `TestStation`): the outer write would overwrite it as it ends. Its
  /// body runs on a copy that is dropped.
  @inlinable
  func modify(_ body: (inout Value) -> Void) {
    if let held = HeldShares.find(self) {
      // The body runs on a copy, so that `withLock` returns what it returns; the copy is dropped.
      var copy = held.pointee.value.assumingMemoryBound(to: Value.self).pointee
      body(&copy)
      return Self.refuseNestedWrite()
    }
    // A Station writing in a reduction publishes its state after it: it need not be told.
    let writer = StationSharing.reducing
    var told: [StationSharing] = []
    let startsWriter = state.withLock { state -> Bool in
      var value = state.value
      let (_, holders) = withUnsafePointer(to: state.value) { current in
        HeldShares.holding(self, value: UnsafeRawPointer(current)) { body(&value) }
      }
      if !holders.isEmpty { state.apply(holders) }
      guard value != state.value else { return false }
      state.value = value
      state.version &+= 1
      if !state.watchers.isEmpty { state.tellWatchers() }
      for holder in state.holders.values where holder !== writer { told.append(holder) }
      return saver?.take(value, version: state.version) ?? false
    }
    if startsWriter { saver?.startWriting() }
    for holder in told { holder.changed() }
  }

  @usableFromInline
  static func refuseNestedWrite() {
    DependencyValues.reportCurrent(
      Diagnostic(
        .other,
        "ignored a write to a shared \(Dump.name(of: Value.self)) inside a write to it (withLock inside its own "
          + "withLock): the outer write would overwrite it; make both changes in the outer body"))
  }

  /// Adds a Station that holds the value, to be told when another writes it.
  @usableFromInline
  func hold(by holder: StationSharing) {
    if let held = HeldShares.find(self) { return held.pointee.holders.append((holder, true)) }
    state.withLock { $0.holders[holder.station] = holder }
  }

  /// Removes a Station, released or no longer holding the value: a dictionary removal, whatever
  /// the number of holders.
  @usableFromInline
  func release(by holder: StationSharing) {
    if let held = HeldShares.find(self) { return held.pointee.holders.append((holder, false)) }
    state.withLock { _ = $0.holders.removeValue(forKey: holder.station) }
  }

  /// The value's changes as they happen: the current value first, then each new one, latest
  /// first — a reader slower than the writers skips to the newest value, never to an older one.
  /// TCA's `$value.publisher`. The stream ends when the value is released (its last ``Shared``
  /// and reference gone) or the reading task is cancelled.
  ///
  /// ```swift
  /// for await meetings in meetingsValue.changes() { render(meetings) }
  /// ```
  ///
  /// A write of a value equal to the current one is no change, and is not told.
  public func changes() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
    let number = state.withLock { state -> UInt64 in
      state.nextWatcher += 1
      state.watchers[state.nextWatcher] = continuation
      continuation.yield(state.value)
      return state.nextWatcher
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { _ = $0.watchers.removeValue(forKey: number) }
    }
    return stream
  }

  deinit {
    for watcher in state.withLock({ $0.watchers.values }) { watcher.finish() }
  }

  /// How many Stations hold the value: those whose reductions or effects used it, or whose state
  /// held it as they started, until they are released.
  public var subscriberCount: Int { state.withLock { $0.holders.count } }
}

extension SharedValue: AnySharedRoot {
  @usableFromInline
  func changeSignals() -> AsyncStream<Void> {
    let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let changes = changes()
    let task = Task {
      for await _ in changes { continuation.yield() }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return signals
  }

  @usableFromInline
  var current: any Sendable { value }

  @usableFromInline
  func isEqual(_ first: any Sendable, _ second: any Sendable) -> Bool {
    (first as? Value) == (second as? Value)
  }
}

/// A ``SharedValue`` of any type, as a Station and the test harness keep them.
@usableFromInline
protocol AnySharedRoot: AnyObject, Sendable {
  /// The Station that noted the value last (see ``StationSharing/note(_:)``).
  var lastNotedBy: Atomic<UInt64> { get }
  /// The value now.
  var current: any Sendable { get }
  /// Whether two values of this root's type are equal.
  func isEqual(_ first: any Sendable, _ second: any Sendable) -> Bool
  func hold(by holder: StationSharing)
  func release(by holder: StationSharing)
  /// Waits until every change has been persisted (see ``SharedValue/flush()``).
  func flush() async -> SharedPersistenceError?
  /// A signal now and at each change (see ``SharedValue/changes()``), ending with the value.
  func changeSignals() -> AsyncStream<Void>
}

/// Writes a shared value's changes to its persistence, one at a time, off the actors: changes
/// that arrive while a write runs are coalesced into one write of the latest. The write itself
/// (a file's `fsync`) blocks the task that runs it, never a Station's actor.
@usableFromInline
final class SharedSaver<Value: Sendable>: Sendable {
  private typealias Waiter = CheckedContinuation<SharedPersistenceError?, Never>

  private struct State {
    var pending: (value: Value, version: UInt64)?
    /// The version of the newest value handed over, or adopted from another writer: an older one
    /// arriving late, or about to be written, is dropped.
    var newest: UInt64 = 0
    var isWriting = false
    var lastError: SharedPersistenceError?
    var waiters: [Waiter] = []
  }

  private let write: @Sendable (Value, _ isCurrent: () -> Bool) -> SharedPersistenceError?
  private let state = Lock(State())

  init(save: @escaping @Sendable (Value, _ isCurrent: () -> Bool) -> SharedPersistenceError?) {
    write = save
  }

  /// Takes `value`, the shared value's `version`, to write; returns whether a writer must start
  /// (with ``startWriting()``, once the caller has released its own lock).
  @usableFromInline
  func take(_ value: Value, version: UInt64) -> Bool {
    state.withLock { state -> Bool in
      guard version > state.newest else { return false }
      state.newest = version
      state.pending = (value, version)
      guard !state.isWriting else { return false }
      state.isWriting = true
      return true
    }
  }

  /// Drops what waits to be written: a value of `version`, which is not to be written, superseded
  /// it.
  func supersede(by version: UInt64) {
    state.withLock { state in
      guard version > state.newest else { return }
      state.newest = version
      state.pending = nil
    }
  }

  /// Writes what is pending, and what arrives meanwhile, on a task of its own.
  @usableFromInline
  func startWriting() {
    Task.detached { [self] in
      // Writes until nothing is pending; the look that finds nothing also ends the writer, under
      // the lock, so that a save arriving after it starts a writer of its own.
      while let next = state.withLock({ state -> (value: Value, version: UInt64)? in
        guard let pending = state.pending else {
          state.isWriting = false
          return nil
        }
        state.pending = nil
        return pending
      }) {
        let error = write(next.value) { state.withLock { $0.newest == next.version } }
        state.withLock { $0.lastError = error }
      }
      let (waiters, error) = state.withLock { state -> ([Waiter], SharedPersistenceError?) in
        // A later writer is running: the waiters wait for it.
        guard !state.isWriting else { return ([], nil) }
        defer { state.waiters = [] }
        return (state.waiters, state.lastError)
      }
      for waiter in waiters { waiter.resume(returning: error) }
    }
  }

  func flush() async -> SharedPersistenceError? {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state -> SharedPersistenceError?? in
        guard state.isWriting || state.pending != nil else { return .some(state.lastError) }
        state.waiters.append(continuation)
        return .none
      }
      if let done { continuation.resume(returning: done) }
    }
  }
}
