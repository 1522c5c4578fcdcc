import Synchronization

/// One value many features read and write — a setting, a session, a cache — held in the state of
/// each Station that shares it: TCA's `@Shared`, Verge's store sync, without a reference in the
/// state.
///
/// ```swift
/// let settings = SharedValue(Settings(), persistence: .file(at: path, encode: …, decode: …))
///
/// // In the feature: write the field like any other; the modifier publishes changes.
/// Drip { state, action in … state.settings.sort = .title … }
///   .sharing(\.settings, with: settings, action: .settingsChanged)
///
/// // Where the Station is made: the other Stations' changes arrive as `.settingsChanged`.
/// station.share(\.settings, with: settings, action: .settingsChanged)
/// ```
///
/// Each Station keeps its own copy of the value in its state, owned by its actor. A reduction
/// that changes the copy writes the value here, at once; every other Station that shares it then
/// receives the new value as an action, reduced in order with its other actions, seen by its
/// observers and asserted by `TestStation` like any change. No Station's state is changed from
/// outside its actor. Writing a value equal to the current one does nothing.
///
/// Persistence: in memory (``SharedPersistence/inMemory``, the default), or a file
/// (``SharedPersistence/file(at:encode:decode:)``), loaded when the value is made — a file that
/// cannot be read or decoded is not loaded over the initial value, and ``loadFailure`` says why —
/// and written after each change, off the actors, atomically (a temporary file renamed over the
/// target). ``flush()`` waits for the writes.
public final class SharedValue<Value: Equatable & Sendable>: Sendable {
  private struct Subscriber {
    let station: UInt64
    /// Delivers a value; `false` when the Station is gone.
    let deliver: @Sendable (Value, _ version: UInt64) -> Bool
  }

  private struct State {
    var value: Value
    var version: UInt64 = 0
    var subscribers: [Subscriber] = []
  }

  private let state: Lock<State>
  private let saver: SharedSaver<Value>?
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
  }

  /// The current value.
  public var value: Value { state.withLock { $0.value } }

  /// Sets the value from outside any Station: every Station that shares it receives it.
  public func set(_ value: Value) {
    write(value, from: 0)
  }

  /// Waits until every change has been persisted; returns the last write's error, if it failed.
  @discardableResult
  public func flush() async -> SharedPersistenceError? {
    await saver?.flush()
  }

  /// Writes `value`, from the Station numbered `station` (0: none), and delivers it to the other
  /// Stations that share it, after releasing the lock.
  @usableFromInline
  func write(_ value: Value, from station: UInt64) {
    let delivery = state.withLock { state -> (UInt64, [Subscriber])? in
      guard state.value != value else { return nil }
      state.value = value
      state.version &+= 1
      return (state.version, state.subscribers.filter { $0.station != station })
    }
    guard let (version, subscribers) = delivery else { return }
    saver?.save(value)
    var gone: [UInt64] = []
    for subscriber in subscribers where !subscriber.deliver(value, version) {
      gone.append(subscriber.station)
    }
    if !gone.isEmpty { state.withLock { $0.subscribers.removeAll { gone.contains($0.station) } } }
  }

  /// Whether `version` is still the latest: a delivery overtaken by a later write is dropped,
  /// since the later write is delivered too.
  func isCurrent(_ version: UInt64) -> Bool {
    state.withLock { $0.version == version }
  }

  /// Adds the Station numbered `station`, delivered each value others write; returns the value
  /// now and a number for ``unsubscribe(_:)``.
  func subscribe(
    station: UInt64, deliver: @escaping @Sendable (Value, UInt64) -> Bool
  ) -> Value {
    state.withLock { state in
      state.subscribers.append(Subscriber(station: station, deliver: deliver))
      return state.value
    }
  }

  /// Removes the Station numbered `station`.
  func unsubscribe(station: UInt64) {
    state.withLock { $0.subscribers.removeAll { $0.station == station } }
  }

  /// How many Stations share the value.
  public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// Writes a shared value's changes to its persistence, one at a time, off the actors: changes
/// that arrive while a write runs are coalesced into one write of the latest. The write itself
/// (a file's `fsync`) blocks the task that runs it, never a Station's actor.
final class SharedSaver<Value: Sendable>: Sendable {
  private typealias Waiter = CheckedContinuation<SharedPersistenceError?, Never>

  private struct State {
    var pending: Value?
    var isWriting = false
    var lastError: SharedPersistenceError?
    var waiters: [Waiter] = []
  }

  private let write: @Sendable (Value) -> SharedPersistenceError?
  private let state = Lock(State())

  init(save: @escaping @Sendable (Value) -> SharedPersistenceError?) {
    write = save
  }

  func save(_ value: Value) {
    let start = state.withLock { state -> Bool in
      state.pending = value
      guard !state.isWriting else { return false }
      state.isWriting = true
      return true
    }
    guard start else { return }
    Task.detached { [self] in
      // Writes until nothing is pending; the look that finds nothing also ends the writer, under
      // the lock, so that a save arriving after it starts a writer of its own.
      while let next = state.withLock({ state -> Value? in
        guard let pending = state.pending else {
          state.isWriting = false
          return nil
        }
        state.pending = nil
        return pending
      }) {
        let error = write(next)
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
