import Synchronization

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
      read: { view in
        if let view, let value = view.value(of: source) as? Value { return value }
        return source.value
      },
      modify: { view, body in
        guard let view else { return source.modify(body) }
        var value = view.value(of: source) as? Value ?? source.value
        body(&value)
        view.set(value, of: source)
      })
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
        root: base.root, path: base.path.appending(KeyPathStep(keyPath: keyPath)),
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
        root: base.root, path: base.path.appending(id),
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

extension Shared: Equatable where Value: Equatable {
  /// Whether both read equal values. In a test's comparison of a step's states, whether both are
  /// the same holder (the values are compared apart, each as its step left it).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    if let view = SharedView.active, view.comparesHolders, lhs.box.root === rhs.box.root,
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
  /// The ``SharedValue`` it reads from.
  @usableFromInline let root: any AnySharedRoot
  /// What part of the root it is: equal paths of one root are one holder.
  @usableFromInline let path: SharedPath
  /// The value, as a test's view shows it, or as it is.
  @usableFromInline let read: @Sendable (SharedView?) -> Value
  /// Changes the value, in a test's view, or in the root, atomically.
  @usableFromInline let modify: @Sendable (SharedView?, (inout Value) -> Void) -> Void

  @usableFromInline
  init(
    root: any AnySharedRoot, path: SharedPath, read: @escaping @Sendable (SharedView?) -> Value,
    modify: @escaping @Sendable (SharedView?, (inout Value) -> Void) -> Void
  ) {
    self.root = root
    self.path = path
    self.read = read
    self.modify = modify
  }

  /// Tells the Station whose reduction or effect runs here that it holds the root.
  @inlinable
  func note() {
    guard let sharing = StationSharing.current else { return }
    sharing.note(root)
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

// MARK: - Views

/// The values shared values show while a test compares a step's states: each ``SharedValue`` as
/// the step left it, and, while the test's assertion runs, as the assertion changes it (its writes
/// go here, never to the value). Bound in the task; plumbing of the test harness.
@usableFromInline
package final class SharedView: Sendable {
  @TaskLocal package static var current: SharedView?
  /// How many views are bound now, anywhere: while none is, a read or a write looks up no
  /// task-local.
  private static let bound = Atomic<Int>(0)

  /// The view bound in this task, if any.
  @usableFromInline
  static var active: SharedView? {
    bound.load(ordering: .relaxed) == 0 ? nil : current
  }

  /// Runs `body` with `view` bound in the task.
  package static func with<Result>(_ view: SharedView, _ body: () throws -> Result) rethrows -> Result {
    bound.add(1, ordering: .relaxed)
    defer { bound.subtract(1, ordering: .relaxed) }
    return try $current.withValue(view, operation: body)
  }

  private let values: Lock<[ObjectIdentifier: any Sendable]>
  /// Whether equality of holders compares which value they hold rather than their values.
  package let comparesHolders: Bool

  /// A view of `snapshot`'s values.
  package init(_ snapshot: SharedSnapshot, comparesHolders: Bool = false) {
    values = Lock(snapshot.entries.mapValues(\.value))
    self.comparesHolders = comparesHolders
  }

  @usableFromInline
  func value(of root: any AnySharedRoot) -> (any Sendable)? {
    values.withLock { $0[ObjectIdentifier(root)] }
  }

  @usableFromInline
  func set(_ value: any Sendable, of root: any AnySharedRoot) {
    values.withLock { $0[ObjectIdentifier(root)] = value }
  }

  /// What the view shows now, for the roots of `snapshot` and those written in the view.
  package func snapshot(over snapshot: SharedSnapshot) -> SharedSnapshot {
    var result = snapshot
    let values = self.values.withLock { $0 }
    for (id, entry) in snapshot.entries {
      if let value = values[id] { result.entries[id] = SharedSnapshot.Entry(root: entry.root, value: value) }
    }
    return result
  }
}

/// The values of the ``SharedValue``s a Station holds, at one moment: what a test compares.
package struct SharedSnapshot: Sendable {
  package struct Entry: Sendable {
    let root: any AnySharedRoot
    let value: any Sendable
  }

  package var entries: [ObjectIdentifier: Entry] = [:]

  package init() {}

  /// Whether no shared value is in it: a feature without shared values compares as before.
  package var isEmpty: Bool { entries.isEmpty }

  /// The values of the Station whose reduction runs here, as they are now; empty outside one.
  package static func ofTheReducingStation() -> SharedSnapshot {
    StationSharing.current?.snapshot() ?? SharedSnapshot()
  }

  /// These values, and `other`'s for the roots these lack: a root first seen in a later step stands
  /// at the value that step found.
  package func filling(from other: SharedSnapshot) -> SharedSnapshot {
    var result = self
    for (id, entry) in other.entries where result.entries[id] == nil { result.entries[id] = entry }
    return result
  }

  /// Each value rendered, in a stable order: what a test shows of shared values no state holds.
  package var lines: [String] {
    entries.values.map { entry in
      "shared " + Dump.name(of: type(of: entry.value)) + ": " + Dump.line(entry.value)
    }.sorted()
  }

  /// Whether both hold equal values for every root either has (a root only one has is compared
  /// with the other's current value).
  package func matches(_ other: SharedSnapshot) -> Bool {
    for (id, entry) in entries {
      let otherValue = other.entries[id]?.value ?? entry.root.current
      if !entry.root.isEqual(entry.value, otherValue) { return false }
    }
    for (id, entry) in other.entries where entries[id] == nil {
      if !entry.root.isEqual(entry.value, entry.root.current) { return false }
    }
    return true
  }
}

// MARK: - A Station's shared values

/// The ``SharedValue``s a Station holds: those its reductions and effects read or write, and those
/// in its state as it started. Each is told to tell the Station when another writes it, so that the
/// Station republishes its state; all are let go when the Station is released.
@usableFromInline
final class StationSharing: Sendable {
  private struct State {
    var roots: [ObjectIdentifier: any AnySharedRoot] = [:]
    var onChange: (@Sendable () -> Void)?
    var isReleased = false
  }

  /// The Station's number.
  let station: UInt64
  private let state = Lock(State())

  init(station: UInt64) {
    self.station = station
  }

  /// The Station whose reduction or effect runs here, if any.
  @usableFromInline
  static var current: StationSharing? {
    if let sharing = ReductionContext.sharing { return sharing }
    return DependencyValues.current.sharing
  }

  /// The Station whose reduction runs on this thread, if any: it publishes its state after it.
  @usableFromInline
  static var reducing: StationSharing? {
    ReductionContext.depth > 0 ? current : nil
  }

  /// What to do when another writes a value the Station holds.
  func onChange(_ action: @escaping @Sendable () -> Void) {
    state.withLock { $0.onChange = action }
  }

  /// Notes that the Station holds `root`: at once if the root was last noted by this Station.
  @usableFromInline
  func note(_ root: any AnySharedRoot) {
    guard root.lastNotedBy.load(ordering: .relaxed) != station else { return }
    root.lastNotedBy.store(station, ordering: .relaxed)
    let isNew = state.withLock { state -> Bool in
      let id = ObjectIdentifier(root)
      guard !state.isReleased, state.roots[id] == nil else { return false }
      state.roots[id] = root
      return true
    }
    if isNew { root.hold(by: self) }
  }

  /// Another wrote a value the Station holds.
  @usableFromInline
  func changed() {
    state.withLock { $0.onChange }?()
  }

  /// The Station is released: it lets go of every value it holds, in time proportional to them.
  func releaseAll() {
    let roots = state.withLock { state -> [any AnySharedRoot] in
      state.isReleased = true
      state.onChange = nil
      defer { state.roots = [:] }
      return Array(state.roots.values)
    }
    for root in roots { root.release(by: self) }
  }

  /// The values the Station holds, now.
  func snapshot() -> SharedSnapshot {
    var snapshot = SharedSnapshot()
    for (id, root) in state.withLock({ $0.roots }) {
      snapshot.entries[id] = SharedSnapshot.Entry(root: root, value: root.current)
    }
    return snapshot
  }

  /// Notes the shared values in `value`, a state as a Station starts: its fields, the cases of its
  /// enums and optionals, at any depth, but not the elements of collections, which would cost what
  /// the collection holds (a value in a list is noted when a reduction or an effect uses it).
  func noteShared(in value: Any) {
    var visited = 0
    func visit(_ value: Any, depth: Int) {
      visited += 1
      guard depth < 32, visited < 4_096 else { return }
      if let shared = value as? any AnySharedHolder {
        note(shared.sharedRoot)
        return
      }
      let mirror = Mirror(reflecting: value)
      switch mirror.displayStyle {
      case .collection?, .dictionary?, .set?: return
      default: break
      }
      for child in mirror.children { visit(child.value, depth: depth + 1) }
    }
    visit(value, depth: 0)
  }
}

/// A ``Shared`` of any type, as a Station finds the shared values in its state.
protocol AnySharedHolder {
  var sharedRoot: any AnySharedRoot { get }
}

extension Shared: AnySharedHolder {
  var sharedRoot: any AnySharedRoot { box.root }
}

extension Station {
  /// The shared values the Station holds, as they are now: what a test compares its first step
  /// with.
  package var sharedSnapshot: SharedSnapshot {
    guard case .root(let handler) = core else { return SharedSnapshot() }
    return handler.dependencies.sharing?.snapshot() ?? SharedSnapshot()
  }
}
