public import Synchronization

/// One value held in several places — a parent and its children, several Stations — and changed
/// as one: TCA's `@Shared`.
///
/// A `Shared` in a feature's state refers to a ``SharedValue``: every holder reads and writes that
/// one value, so a write by any of them is seen by all at once, in the same reduction, in this
/// Station and in every other. Declare it once, in the state; there is nothing to add to the body
/// or to the Station.
///
/// ```swift
/// struct SyncUps: Dripper {
///   struct State: Equatable, Sendable {
///     @Shared var syncUps: IdentifiedArrayOf<SyncUp>
///     var detail: Detail.State?
///   }
///   …
///   case .syncUpTapped(let id):
///     guard let syncUp = state.$syncUps[id: id] else { return .none }
///     state.detail = Detail.State(syncUp: syncUp)   // the detail holds the list's element
///
/// struct Detail: Dripper {
///   struct State: Equatable, Sendable { @Shared var syncUp: SyncUp }
///   …
///   case .titleChanged(let title):
///     state.$syncUp.withLock { $0.title = title }   // the list sees it at once
/// ```
///
/// Read it as the value (`state.syncUps`); write it with ``withLock(_:)``, atomically. `$value`
/// derives a `Shared` of a part: a field (`$syncUp.title`), or one element of an identified list
/// by id (`$syncUps[id:]`), which writes through to the list.
///
/// Observation and tests: a Station that holds the value republishes its state to its observers
/// when another Station or an effect writes it. A `TestStation` asserts shared values like the
/// rest of the state, as they were after each step: a change is asserted once, through any holder
/// (`$0.$syncUp.withLock { $0.title = "Retro" }`), and an unasserted one fails.
///
/// Dripper's state is otherwise plain values; a `Shared` is the one place a value is held by
/// reference, as in TCA. Two states holding the same `Shared` are equal when their values are; an
/// observer that keeps an old state (``Transition/old``) reads the value as it is now.
@propertyWrapper
@dynamicMemberLookup
public struct Shared<Value: Sendable>: Sendable {
  @usableFromInline let box: SharedBox<Value>

  /// A holder of `source`.
  @inlinable
  public init(_ source: SharedValue<Value>) where Value: Equatable {
    box = SharedBox(
      root: source, path: SharedPath(),
      read: { view in Self.read(source, in: view) },
      modify: { view, body in Self.modify(source, in: view, body) })
  }

  /// `source`'s value, as a test's view shows it, or as it is.
  @inlinable
  static func read(_ source: SharedValue<Value>, in view: SharedView?) -> Value where Value: Equatable {
    if let view, let value = view.value(of: source) as? Value { return value }
    return source.value
  }

  /// Changes `source`'s value, in a test's view, or in the value, atomically.
  @inlinable
  static func modify(_ source: SharedValue<Value>, in view: SharedView?, _ body: (inout Value) -> Void)
  where Value: Equatable {
    guard let view else { return source.modify(body) }
    var value = view.value(of: source) as? Value ?? source.value
    body(&value)
    view.set(value, of: source)
  }

  /// A holder of a new value of its own, in memory, for a value one feature makes and hands to its
  /// children: TCA's `Shared(value:)`.
  ///
  /// ```swift
  /// struct State: Equatable, Sendable {
  ///   @Shared(value: Stats()) var stats
  /// }
  /// ```
  ///
  /// There is no `init(wrappedValue:)`: a state's memberwise initializer takes the `Shared` itself,
  /// so that a child made with `Child.State(stats: state.$stats)` holds the parent's value, and no
  /// initializer makes a new value from a plain one by accident.
  @inlinable
  public init(value: Value) where Value: Equatable {
    self.init(SharedValue(value))
  }

  /// The same shared value as `projectedValue`: `@Shared var syncUp: SyncUp` set from `$other`.
  @inlinable
  public init(projectedValue: Shared<Value>) {
    self = projectedValue
  }

  @usableFromInline
  init(box: SharedBox<Value>) {
    self.box = box
  }

  /// The value now: in a test's assertion, the value as that step left it.
  @inlinable
  public var wrappedValue: Value {
    box.note()
    return box.read(SharedView.active)
  }

  /// The `Shared` itself, to write it (``withLock(_:)``), hand it to a child, or derive a part.
  @inlinable
  public var projectedValue: Shared<Value> {
    get { self }
    set { self = newValue }
  }

  /// Changes the value in place, atomically: no other write comes between the read and the write.
  /// Returns what `body` returns.
  ///
  /// ```swift
  /// state.$count.withLock { $0 += 1 }
  /// ```
  ///
  /// Called in a reduction, the change is part of it; in a test's assertion, it says what the step
  /// changed. The value is written only if it changed.
  @inlinable
  @discardableResult
  public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    box.note()
    var result: Result?
    box.modify(SharedView.active) { result = body(&$0) }
    return result!
  }

  /// Waits until every change to the value has been persisted — by a file key
  /// (``SharedKey/fileStorage(_:)-(String)``), say — and returns the last write's error, if it
  /// failed: what a command-line tool awaits before it exits.
  ///
  /// ```swift
  /// if let error = await state.$settings.flush() { print("settings not saved: \(error)") }
  /// ```
  public func flush() async -> SharedPersistenceError? {
    await box.anchor.resolvedRoot?.flush()
  }

  /// A `Shared` of one part of the value: reading it reads the part, writing it writes the whole.
  ///
  /// ```swift
  /// let title: Shared<String> = state.$syncUp.title
  /// ```
  @inlinable
  public subscript<Member>(dynamicMember keyPath: any WritableKeyPath<Value, Member> & Sendable) -> Shared<
    Member
  > {
    let base = box
    return Shared<Member>(
      box: SharedBox(
        anchor: base.anchor, path: base.path.appending(KeyPathStep(keyPath: keyPath)),
        read: { view in base.read(view)[keyPath: keyPath] },
        modify: { view, body in base.modify(view) { body(&$0[keyPath: keyPath]) } }))
  }
}

extension Shared where Value: Equatable {
  /// A `Shared` of one element of an identified list, by id, or `nil` if no element has that id:
  /// TCA's `Shared($syncUps[id: id])`. Writing it writes the element in the list; if the element
  /// leaves the list, the `Shared` keeps reading its last value, and writes nothing.
  @inlinable
  public subscript<ID, Element>(id id: ID) -> Shared<Element>?
  where Value == IdentifiedArray<ID, Element>, Element: Sendable {
    guard let last = wrappedValue[id: id] else { return nil }
    let base = box
    return Shared<Element>(
      box: SharedBox(
        anchor: base.anchor, path: base.path.appending(id),
        read: { view in base.read(view)[id: id] ?? last },
        modify: { view, body in
          base.modify(view) { list in
            guard var element = list[id: id] else {
              // Gone: the change applies to a copy of its last value, which nothing keeps.
              var gone = last
              return body(&gone)
            }
            body(&element)
            list[id: id] = element
          }
        }))
  }
}

extension Shared where Value: Equatable {
  /// The value's changes as they happen, TCA's `$value.publisher`: the current value first, then
  /// each new one, latest first (see ``SharedValue/changes()``).
  ///
  /// ```swift
  /// return .run { [stats = state.$stats] pour in
  ///   for await stats in stats.changes() { await pour(.statsChanged(stats)) }
  /// }
  /// ```
  ///
  /// The stream of a whole value ends when the value is released (a key no Station resolved: when
  /// the last state holding it goes); of a part (`$syncUp.title`), which holds the value, when the
  /// reading task is cancelled. A change that leaves the part as it
  /// was is not told. A key held by state made before its Station, asked outside any Station, is
  /// followed as it is: its initial value's writes, then, once the Station resolves the key, the
  /// changes of the Station's value.
  public func changes() -> AsyncStream<Value> {
    // A key not resolved yet, outside any Station, is followed until a Station resolves it, never
    // resolved here to a value of its own.
    let pendingSignals: AsyncStream<Void>? =
      if StationSharing.current == nil, case .key(let anchor) = box.anchor, anchor.resolved.load() == nil {
        anchor.reference.pendingChangeSignals()
      } else {
        nil
      }
    if let pendingSignals, box.path.steps.isEmpty { return Self.changes(of: box, following: pendingSignals) }
    let signals: AsyncStream<Void>
    if let pendingSignals {
      signals = pendingSignals
    } else {
      let root = box.root
      if box.path.steps.isEmpty, let source = root as? SharedValue<Value> { return source.changes() }
      signals = root.changeSignals()
    }
    let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
    let read = box.read
    let task = Task {
      var last: Value?
      for await _ in signals {
        let value = read(nil)
        if value != last { continuation.yield(value) }
        last = value
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// The changes of a key not resolved yet, its holders' `box` held weakly: when the last holder
  /// goes, so does the key's reference, which ends `signals`, and the stream with them.
  private static func changes(of box: SharedBox<Value>, following signals: AsyncStream<Void>) -> AsyncStream<
    Value
  > {
    let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
    // Read now: the holder that asked may be gone by the time the task runs.
    let initial = box.read(nil)
    continuation.yield(initial)
    let task = Task { [weak box] in
      var last = initial
      for await _ in signals {
        guard let value = box?.read(nil) else { break }
        if value != last { continuation.yield(value) }
        last = value
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}

extension Shared: Equatable where Value: Equatable {
  /// Whether both read equal values. In a test's comparison of a step's states, whether both are
  /// the same holder (the values are compared apart, each as its step left it).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    // Resolved roots only: a key not resolved yet is compared by its value, never detached here.
    if let view = SharedView.active, view.comparesHolders, let left = lhs.box.anchor.resolvedRoot,
      let right = rhs.box.anchor.resolvedRoot, left === right,
      lhs.box.path == rhs.box.path
    {
      return true
    }
    return lhs.wrappedValue == rhs.wrappedValue
  }
}

extension Shared: CustomReflectable {
  /// The value: dumps and test diffs show it as if it were stored in place.
  public var customMirror: Mirror { Mirror(reflecting: wrappedValue) }
}

extension Shared: CustomStringConvertible {
  /// The value's description.
  public var description: String { "\(wrappedValue)" }
}

// MARK: - References

/// Where a ``Shared`` reads and writes: a ``SharedValue``, or a part of one, as closures made where
/// the value's type is known, so that a read or a write is compiled for it.
@usableFromInline
final class SharedBox<Value: Sendable>: Sendable {
  /// The ``SharedValue`` it reads from, or the key that finds it.
  @usableFromInline let anchor: SharedAnchor
  /// What part of the root it is: equal paths of one root are one holder.
  @usableFromInline let path: SharedPath
  /// The value, as a test's view shows it, or as it is.
  @usableFromInline let read: @Sendable (SharedView?) -> Value
  /// Changes the value, in a test's view, or in the root, atomically.
  @usableFromInline let modify: @Sendable (SharedView?, (inout Value) -> Void) -> Void

  @usableFromInline
  init(
    anchor: SharedAnchor, path: SharedPath, read: @escaping @Sendable (SharedView?) -> Value,
    modify: @escaping @Sendable (SharedView?, (inout Value) -> Void) -> Void
  ) {
    self.anchor = anchor
    self.path = path
    self.read = read
    self.modify = modify
  }

  @usableFromInline
  convenience init(
    root: any AnySharedRoot, path: SharedPath, read: @escaping @Sendable (SharedView?) -> Value,
    modify: @escaping @Sendable (SharedView?, (inout Value) -> Void) -> Void
  ) {
    self.init(anchor: .root(root), path: path, read: read, modify: modify)
  }

  /// The ``SharedValue`` it reads from: for a key, the value the key names in the Station whose
  /// reduction or effect runs here, or, outside one, the value it was resolved to before.
  @usableFromInline
  var root: any AnySharedRoot { anchor.root(in: StationSharing.current) }

  /// Tells the Station whose reduction or effect runs here that it holds the root.
  @inlinable
  func note() {
    guard let sharing = StationSharing.current else { return }
    sharing.note(anchor.root(in: sharing))
  }
}

/// Where a ``SharedBox`` finds its ``SharedValue``: the value itself, or a key that names one in
/// the Station that first holds it (see ``SharedKey``).
@usableFromInline
enum SharedAnchor: Sendable {
  case root(any AnySharedRoot)
  case key(SharedKeyAnchor)

  /// The value, if it is known: a key not resolved yet has none.
  var resolvedRoot: (any AnySharedRoot)? {
    switch self {
    case .root(let root): root
    case .key(let anchor): anchor.resolved.load()?.root ?? anchor.reference.resolved
    }
  }

  /// The value; a key not resolved yet is resolved in `sharing`'s Station.
  @inlinable
  func root(in sharing: StationSharing?) -> any AnySharedRoot {
    switch self {
    case .root(let root): root
    case .key(let anchor): anchor.root(in: sharing)
    }
  }
}

/// A key's ``SharedValue``, once resolved, kept where a read finds it with one load and no generic
/// code: each read and write of a keyed ``Shared`` notes its value.
@usableFromInline
final class SharedKeyAnchor: Sendable {
  @usableFromInline let resolved = AtomicLazyReference<ResolvedSharedRoot>()
  @usableFromInline let reference: any KeyedSharedRoot

  @usableFromInline
  init(_ reference: any KeyedSharedRoot) {
    self.reference = reference
  }

  @inlinable
  func root(in sharing: StationSharing?) -> any AnySharedRoot {
    if let resolved = resolved.load() { return resolved.root }
    return resolved.storeIfNil(ResolvedSharedRoot(reference.resolve(in: sharing))).root
  }
}

/// A resolved key's value, in a class for ``SharedKeyAnchor``'s atomic reference.
@usableFromInline
final class ResolvedSharedRoot: Sendable {
  @usableFromInline let root: any AnySharedRoot

  @usableFromInline
  init(_ root: any AnySharedRoot) {
    self.root = root
  }
}

/// The steps from a ``SharedValue`` to a part of it, for telling holders apart.
@usableFromInline
struct SharedPath: Hashable, Sendable {
  var steps: [AnySendableHashable] = []

  @usableFromInline
  init() {}

  init(steps: [AnySendableHashable]) {
    self.steps = steps
  }

  @usableFromInline
  func appending(_ step: some Hashable & Sendable) -> SharedPath {
    SharedPath(steps: steps + [AnySendableHashable(step)])
  }
}

/// A key path as a step of a ``SharedPath``.
@usableFromInline
struct KeyPathStep: Hashable, Sendable {
  let keyPath: any AnyKeyPath & Sendable

  @usableFromInline
  init(keyPath: any AnyKeyPath & Sendable) {
    self.keyPath = keyPath
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool { (lhs.keyPath as AnyKeyPath) == (rhs.keyPath as AnyKeyPath) }
  @usableFromInline
  func hash(into hasher: inout Hasher) { hasher.combine(keyPath as AnyKeyPath) }
}
