public import Synchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A name for a shared value that features declare on their own and find as one: TCA's
/// `@Shared(.inMemory("stats"))` and `@Shared(.fileStorage(url))`.
///
/// ```swift
/// struct Counter: Dripper {
///   struct State: Equatable, Sendable {
///     @Shared(.inMemory("stats")) var stats = Stats()
///   }
///   …
/// }
/// struct Profile: Dripper {
///   struct State: Equatable, Sendable {
///     @Shared(.inMemory("stats")) var stats = Stats()   // the counter's value
///   }
///   …
/// }
/// ```
///
/// A key names one value in each Station: every ``Shared`` with the key, in any feature the
/// Station runs (its scopes, presented children, stack elements), reads and writes that value.
/// The first holder's initial value starts it; later holders' initial values are ignored. Each
/// Station has its own values — so each test's `TestStation` starts afresh, as TCA's tests do —
/// and so does each key of a ``StationHost``. To share a value between Stations, make a
/// ``SharedValue`` and hand it to each (``Shared/init(_:)``).
///
/// A key is resolved where it is first used: state made by a reduction or an effect resolves it
/// in that Station; state made before its Station (`Station(initialState: App.State())`) holds the
/// key and its initial value, and is resolved as the Station starts. Until then, reads read the
/// initial value and writes change it; of writes from several threads at once, each is kept (a
/// `withLock` closure whose value another thread changed meanwhile runs again, on that value).
///
/// The same name with two value types is two mistakes in one: the second is reported as a
/// ``Diagnostic`` and holds a value of its own.
public struct SharedKey<Value: Equatable & Sendable>: Sendable, CustomStringConvertible {
  /// What tells keys apart: their kind and name.
  let id: String
  /// How the value the key names keeps itself, made when the key is first resolved.
  let persistence: @Sendable () -> SharedPersistence<Value>

  /// The key's kind and name: `inMemory("stats")`.
  public let description: String

  /// A value kept in memory, for as long as its Station lives, found by `name`.
  ///
  /// ```swift
  /// @Shared(.inMemory("stats")) var stats = Stats()
  /// ```
  public static func inMemory(_ name: String) -> Self {
    Self(id: "inMemory:" + name, persistence: { .inMemory }, description: "inMemory(\(Dump.line(name)))")
  }
}

extension SharedKey where Value: Codable {
  /// A value kept in the file at `path`, as JSON, found by the path: TCA's `.fileStorage(url)`.
  ///
  /// ```swift
  /// @Shared(.fileStorage(documents + "/syncups.json")) var syncUps: IdentifiedArrayOf<SyncUp> = []
  /// ```
  ///
  /// It is ``SharedPersistence/file(at:encode:decode:)`` with JSON: loaded when the key is
  /// resolved (a file that cannot be read or decoded is not loaded over the initial value),
  /// written atomically after each change, off the actors. Two Stations, or two processes, naming
  /// one file each hold a value of it, and agree through the file: the last write wins.
  public static func fileStorage(_ path: String) -> Self {
    Self(
      id: "fileStorage:" + path,
      persistence: {
        .file(
          at: path, encode: { Array(try JSONEncoder().encode($0)) },
          decode: { try JSONDecoder().decode(Value.self, from: Data($0)) })
      },
      description: "fileStorage(\(Dump.line(path)))")
  }

  /// A value kept in the file at `url`, a file URL, as JSON: ``fileStorage(_:)-(String)``.
  public static func fileStorage(_ url: URL) -> Self {
    fileStorage(url.path)
  }
}

extension Shared where Value: Equatable {
  /// A holder of the value `key` names in its Station, which starts as `wrappedValue` if no
  /// feature has named it yet.
  ///
  /// ```swift
  /// struct State: Equatable, Sendable {
  ///   @Shared(.inMemory("stats")) var stats = Stats()
  /// }
  /// ```
  ///
  /// The state's memberwise initializer takes the initial value (`State(stats: Stats())`), as
  /// TCA's does. See ``SharedKey`` for where the value lives.
  @inlinable
  public init(wrappedValue: Value, _ key: SharedKey<Value>) {
    if let sharing = StationSharing.current {
      self.init(sharing.keys.value(for: key, initial: wrappedValue))
      return
    }
    let reference = SharedKeyReference(key: key, initial: wrappedValue)
    // Once resolved, a read or a write is a load more than a value's own (see `init(_:)`).
    self.init(
      box: SharedBox(
        anchor: .key(SharedKeyAnchor(reference)), path: SharedPath(),
        read: { view in
          if let source = reference.resolvedSource.load() { return Self.read(source, in: view) }
          return reference.read(in: view)
        },
        modify: { view, body in
          if let source = reference.resolvedSource.load() { return Self.modify(source, in: view, body) }
          reference.modify(in: view, body)
        }))
  }
}

/// A key a ``Shared`` holds before its Station resolves it.
@usableFromInline
protocol KeyedSharedRoot: AnyObject, Sendable {
  /// The value the key names in `sharing`'s Station; once resolved, always that value. Outside
  /// any Station, a value of its own.
  func resolve(in sharing: StationSharing?) -> any AnySharedRoot
  /// The value, once resolved.
  var resolved: (any AnySharedRoot)? { get }
  /// Before the key is resolved: a signal now, at each write of the initial value, and, once a
  /// Station resolves the key, at each change of its value, ending with it. `nil` once resolved.
  func pendingChangeSignals() -> AsyncStream<Void>?
}

/// A ``Shared``'s key and initial value, resolved to the ``SharedValue`` the key names in the
/// first Station that uses it; until then, the initial value, which writes change.
@usableFromInline
final class SharedKeyReference<Value: Equatable & Sendable>: KeyedSharedRoot {
  private let key: SharedKey<Value>
  /// The value before the key is resolved.
  private let pending: Lock<Value>
  /// The value the key names, once resolved: a load, on every read and write after.
  @usableFromInline let resolvedSource = AtomicLazyReference<SharedValue<Value>>()
  /// The streams of changes made before the key was resolved, by number; `nil` once handed to the
  /// value the key resolved to.
  private let waiting = Lock<(streams: [Int: AsyncStream<Void>.Continuation], next: Int)?>(([:], 0))

  @usableFromInline
  init(key: SharedKey<Value>, initial: Value) {
    self.key = key
    pending = Lock(initial)
  }

  /// The streams of changes waiting for the key to be resolved.
  private var waitingStreams: [AsyncStream<Void>.Continuation] {
    waiting.withLock { $0.map { Array($0.streams.values) } ?? [] }
  }

  deinit {
    // Never resolved: the streams end with the value.
    for continuation in waitingStreams { continuation.finish() }
  }

  @usableFromInline
  func resolve(in sharing: StationSharing?) -> any AnySharedRoot {
    if let source = source(in: sharing) { return source }
    return resolved(to: SharedValue(pending.withLock { $0 }))
  }

  /// Resolves the key to `candidate` unless it was resolved first; hands the streams waiting for it
  /// to the value.
  private func resolved(to candidate: SharedValue<Value>) -> SharedValue<Value> {
    let source = resolvedSource.storeIfNil(candidate)
    let streams = waiting.withLock { waiting -> [AsyncStream<Void>.Continuation] in
      defer { waiting = nil }
      return waiting.map { Array($0.streams.values) } ?? []
    }
    for continuation in streams { Self.forward(source, to: continuation) }
    return source
  }

  /// Signals `continuation` at each change of `source`, and ends it with `source`'s.
  private static func forward(_ source: SharedValue<Value>, to continuation: AsyncStream<Void>.Continuation) {
    let signals = source.changeSignals()
    let task = Task {
      for await _ in signals { continuation.yield() }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
  }

  @usableFromInline
  func pendingChangeSignals() -> AsyncStream<Void>? {
    guard resolvedSource.load() == nil else { return nil }
    let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    continuation.yield()
    let number = waiting.withLock { waiting -> Int? in
      guard waiting != nil else { return nil }
      waiting!.next += 1
      waiting!.streams[waiting!.next] = continuation
      return waiting!.next
    }
    if let number {
      continuation.onTermination = { [weak self] _ in
        _ = self?.waiting.withLock { $0?.streams.removeValue(forKey: number) }
      }
    } else if let source = resolvedSource.load() {
      // Resolved meanwhile: the stream follows the value.
      Self.forward(source, to: continuation)
    }
    return signals
  }

  @usableFromInline
  var resolved: (any AnySharedRoot)? { resolvedSource.load() }

  /// The value, if the key is resolved or can be here: in a Station's reduction or effect.
  private func source(in sharing: StationSharing?) -> SharedValue<Value>? {
    if let source = resolvedSource.load() { return source }
    guard let sharing else { return nil }
    // Looked up outside the pending value's lock: the registry's lock is taken alone.
    return resolved(to: sharing.keys.value(for: key, initial: pending.withLock { $0 }))
  }

  @usableFromInline
  func read(in view: SharedView?) -> Value {
    if let source = source(in: StationSharing.current) { return Shared.read(source, in: view) }
    return pending.withLock { $0 }
  }

  @usableFromInline
  func modify(in view: SharedView?, _ body: (inout Value) -> Void) {
    if let source = source(in: StationSharing.current) { return Shared.modify(source, in: view, body) }
    // Outside any Station: the initial value changes, the body run outside the lock (it may read
    // this value). The change is kept only if no other thread wrote in between; else it is made
    // again, on what that thread wrote.
    var value: Value
    while true {
      let before = pending.withLock { $0 }
      value = before
      body(&value)
      let kept = pending.withLock { current -> Bool in
        guard current == before else { return false }
        current = value
        return true
      }
      if kept { break }
    }
    for continuation in waitingStreams { continuation.yield() }
    // Resolved meanwhile, on another thread: the change goes to the value too.
    if let source = resolvedSource.load() { Shared.modify(source, in: view) { $0 = value } }
  }
}

/// The values ``SharedKey``s name in one Station, by key.
@usableFromInline
final class SharedKeys: Sendable {
  private let values = Lock<[String: any AnySharedRoot]>([:])

  /// The value `key` names; made from `initial`, or loaded, if no one named it yet.
  @usableFromInline
  func value<Value>(for key: SharedKey<Value>, initial: Value) -> SharedValue<Value> {
    let (value, mismatch) = values.withLock { values -> (SharedValue<Value>, (any AnySharedRoot)?) in
      if let existing = values[key.id] {
        if let value = existing as? SharedValue<Value> { return (value, nil) }
        return (SharedValue(initial), existing)
      }
      let value = SharedValue(initial, persistence: key.persistence())
      values[key.id] = value
      return (value, nil)
    }
    if mismatch == nil, let failure = value.loadFailure {
      DependencyValues.reportCurrent(
        Diagnostic(.other, "the shared key \(key) started at its initial value: \(failure)"))
    }
    if let mismatch {
      DependencyValues.reportCurrent(
        Diagnostic(
          .other,
          "the shared key \(key) names a \(Dump.name(of: type(of: mismatch.current))) here, not a "
            + "\(Dump.name(of: Value.self)): this holder keeps a value of its own"))
    }
    return value
  }
}
