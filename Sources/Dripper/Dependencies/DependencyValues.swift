import Synchronization

/// The dependencies a feature uses: clocks, ids, dates, randomness, and your own clients.
///
/// Read them in a dripper with ``Dependency``; replace them for a Station with
/// ``Station/init(initialState:observers:dripper:withDependencies:)`` or for part of a feature with
/// ``Dripper/dependency(_:_:)``. Add your own with a ``DependencyKey`` and a computed property.
///
/// In a Station's reduction, values resolve through a thread-local context the Station sets for
/// each batch; elsewhere, through a task-local, so they stay right across `await`s. An effect keeps
/// the dependencies in force where it was created, even once they have changed.
public struct DependencyValues: Sendable {
  /// The values in force: those of the reduction running on this thread, if any (see
  /// `ReductionContext`), or else the current task's.
  @usableFromInline
  static var current: DependencyValues {
    ReductionContext.dependencies ?? inTask
  }

  /// The values bound in the current task. Bind them with ``bind(_:_:)``, which makes sure a
  /// reduction's values on the thread do not hide them.
  static var inTask: DependencyValues { bound.values }

  /// What the current task binds: values, or the `run` effect whose task it is, which holds its
  /// values (see ``Bound``).
  @TaskLocal static var bound = Bound(values: DependencyValues(context: .live), effect: nil)

  @usableFromInline var storage: Storage
  /// Whether the feature reading the values is presented: a field of its own, not an override,
  /// because a presented child or stack element sets it for each of its actions, and an override
  /// copies the overrides.
  @usableFromInline var presented = false
  /// The number of the Station whose reductions these are in force for (0: none): what a
  /// ``SharedValue`` tells its writer by, so that a Station is not sent back its own change.
  /// `package`, for the test harness, which binds its own dependencies around each reduction and
  /// must keep the Station's number.
  @usableFromInline package var station: UInt64 = 0
  /// Whether these are a Station's values, whose ``isPresented`` follows how deep in presented
  /// features the reduction in progress is (see `ReductionContext`), raised by a presentation or a
  /// stack around a child's reduction instead of binding these values again, which costs more
  /// than the reduction. An effect captures ``isPresented`` as it is when the effect is made.
  @usableFromInline package var followsReductions = false
  /// Where the stacks a Station's reductions build take their element ids, so that an id is never
  /// given twice in the Station's life (see ``StackElementID``); `nil` outside a Station.
  @usableFromInline var stackElementIDs: StackElementIDs?
  /// The shared values the Station holds, which its reductions and effects note as they use them
  /// (see ``Shared``); `nil` outside a Station.
  @usableFromInline var sharing: StationSharing?

  /// Live dependencies: the values a program uses when nothing overrides them.
  public init() {
    self.init(context: .live)
  }

  /// Dependencies holding `storage`.
  init(storage: Storage) {
    self.storage = storage
  }

  /// Dependencies resolving to the values of `context`, with fresh caches.
  init(context: DependencyContext) {
    storage = Storage(context: context, reporter: nil)
  }

  /// Whether values resolve to their live or their test values.
  ///
  /// Setting it starts afresh: values set before and values already resolved are forgotten.
  public var context: DependencyContext {
    get { storage.context }
    set {
      guard newValue != storage.context else { return }
      storage = Storage(context: newValue, reporter: storage.reporter)
    }
  }

  /// The value for `key`.
  @inlinable
  public subscript<Key: TestDependencyKey>(key: Key.Type) -> Key.Value {
    get { storage.value(for: key) }
    set { storage = storage.setting(newValue, for: key) }
  }

  /// Where diagnostics raised while these dependencies are in force go.
  @usableFromInline
  var reporter: (@Sendable (Diagnostic) -> Void)? {
    get { storage.reporter }
    set { storage = storage.setting(reporter: newValue) }
  }

  /// These values as something made now keeps them (an effect, a Station): whether it is
  /// presented is fixed, and no longer follows the Station's reductions.
  @inlinable
  var captured: DependencyValues {
    guard followsReductions else { return self }
    var values = self
    values.presented = isPresented
    values.followsReductions = false
    return values
  }

  /// `values`, keeping what ties these to their Station's reductions: for a harness that binds
  /// values of its own around each reduction.
  package mutating func replace(with values: DependencyValues) {
    let (station, followsReductions, stackElementIDs, sharing) = (
      self.station, self.followsReductions, self.stackElementIDs, self.sharing
    )
    self = values
    self.station = station
    self.followsReductions = followsReductions
    self.stackElementIDs = stackElementIDs
    self.sharing = sharing
  }

  /// Runs `body` with `values` in force, bound in the task, so that tasks it starts inherit them.
  ///
  /// It binds no effect: `body` cannot await a part of one, and this runs around reductions
  /// (``Dripper/dependency(_:_:)``), where looking the effect up would cost each action.
  @usableFromInline
  static func bind<Result>(_ values: DependencyValues, _ body: () throws -> Result) rethrows -> Result {
    try ReductionContext.hidingDependencies {
      try $bound.withValue(Bound(values: values, effect: nil), operation: body)
    }
  }

  /// Runs `body` with `values` in force, bound in the task. Inside an effect's task, the effect
  /// stays the current one.
  ///
  /// No reduction's values can be set on the thread here: a reduction is synchronous, and this
  /// function is not.
  static func bind<Result: Sendable>(
    _ values: DependencyValues, _ body: () async throws -> Result
  ) async rethrows -> Result {
    try await $bound.withValue(Bound(values: values, effect: bound.effect), operation: body)
  }

  /// Runs `body` as the task of `effect`, with the values `run` holds in force.
  ///
  /// One binding of two references to objects of this effect alone: binding the values
  /// themselves copies them, retaining the objects every effect of the Station shares, whose
  /// counts then move between the cores running the Station and its effects.
  static func bind<Result: Sendable>(
    effect: any EffectScope, running run: any EffectDependencies, _ body: () async throws -> Result
  ) async rethrows -> Result {
    try await $bound.withValue(Bound(effect: effect, run: run), operation: body)
  }

  /// What a task binds: values, with the effect they are bound inside if any, or a `run` effect
  /// and the payload holding the values it was made with.
  ///
  /// A struct, not an enum of the two: as an enum (a payload of values and an optional effect, or
  /// of two existentials), a debug build with Swift 6.3.1 crashed when a synchronous bind's body
  /// threw, calling through a function pointer read from garbage (`TestStationFailureTests`,
  /// under AddressSanitizer too); not diagnosed further.
  struct Bound: Sendable {
    /// The values bound, or `nil` when ``run`` holds them.
    private let bound: DependencyValues?
    /// The `run` effect whose task this is, if any.
    let effect: (any EffectScope)?
    /// The effect's payload, whose values are in force when none are bound.
    private let run: (any EffectDependencies)?

    /// Values, bound inside `effect` if not `nil`.
    init(values: DependencyValues, effect: (any EffectScope)?) {
      (bound, self.effect, run) = (values, effect, nil)
    }

    /// A `run` effect and the payload holding its values.
    init(effect: any EffectScope, run: any EffectDependencies) {
      (bound, self.effect, self.run) = (nil, effect, run)
    }

    /// The values in force: each initializer sets one of `bound` and `run`.
    var values: DependencyValues {
      switch (bound, run) {
      case (let bound?, _): bound
      case (nil, let run?): run.dependencies
      case (nil, nil): preconditionFailure("a binding holds values or an effect's run")
      }
    }
  }

  /// Reports a diagnostic where the current task's dependencies send them.
  static func reportCurrent(_ diagnostic: Diagnostic) {
    if let reporter = current.reporter {
      reporter(diagnostic)
    } else {
      StandardError.print(diagnostic.description)
    }
  }
}

extension DependencyValues {
  /// The values themselves: immutable, replaced when one is set, so that copies are cheap and
  /// identity tells whether two sets are the same.
  ///
  /// Values are stored in boxes keyed by their key's type, so that reading one is a dictionary
  /// lookup and an unchecked downcast (the key's type fixes the box's), specialized where the
  /// dependency is read.
  @usableFromInline
  final class Storage: Sendable {
    @usableFromInline let context: DependencyContext
    let reporter: (@Sendable (Diagnostic) -> Void)?
    @usableFromInline let overrides: [ObjectIdentifier: AnyValueBox]
    /// Default values resolved so far, shared by every storage derived from this one, so that a
    /// stateful default (an incrementing id) is created once per context.
    @usableFromInline let defaults: Defaults

    init(context: DependencyContext, reporter: (@Sendable (Diagnostic) -> Void)?) {
      self.context = context
      self.reporter = reporter
      self.overrides = [:]
      self.defaults = Defaults()
    }

    private init(
      context: DependencyContext, reporter: (@Sendable (Diagnostic) -> Void)?,
      overrides: [ObjectIdentifier: AnyValueBox], defaults: Defaults
    ) {
      self.context = context
      self.reporter = reporter
      self.overrides = overrides
      self.defaults = defaults
    }

    @inlinable
    func value<Key: TestDependencyKey>(for key: Key.Type) -> Key.Value {
      if !overrides.isEmpty, let box = overrides[ObjectIdentifier(key)] {
        return unsafeDowncast(box as AnyObject, to: ValueBox<Key.Value>.self).value
      }
      return defaults.value(for: key, in: self)
    }

    @usableFromInline
    func setting<Key: TestDependencyKey>(_ value: Key.Value, for key: Key.Type) -> Storage {
      var overrides = self.overrides
      overrides[ObjectIdentifier(key)] = ValueBox(value)
      return Storage(context: context, reporter: reporter, overrides: overrides, defaults: defaults)
    }

    func setting(reporter: (@Sendable (Diagnostic) -> Void)?) -> Storage {
      Storage(context: context, reporter: reporter, overrides: overrides, defaults: defaults)
    }
  }

  /// A cache of default values, resolved on first use.
  @usableFromInline
  final class Defaults: Sendable {
    @usableFromInline let values = Lock<[ObjectIdentifier: AnyValueBox]>([:])

    init() {}

    @inlinable
    func value<Key: TestDependencyKey>(for key: Key.Type, in storage: Storage) -> Key.Value {
      if let box = values.withLock({ $0[ObjectIdentifier(key)] }) {
        return unsafeDowncast(box as AnyObject, to: ValueBox<Key.Value>.self).value
      }
      return resolve(key, in: storage)
    }

    /// Resolves a default outside the lock (it may read other dependencies or report a
    /// diagnostic), keeping the first one resolved if another thread raced.
    ///
    /// The values being read are in force while the default resolves: a default that reads other
    /// dependencies reads these, and a diagnostic it raises (an unimplemented test value) goes to
    /// their reporter — to the test that set them up, even when the read happens while it sets
    /// them up, in a `withDependencies` closure, where no Station is current yet.
    /// A key's live value: a ``DependencyKey``'s, looked up once, when the key is resolved; a key
    /// that only has a test value (its live one declared in a module not linked) reports it and
    /// serves its test value.
    private func liveValue<Key: TestDependencyKey>(of key: Key.Type, in storage: Storage) -> Key.Value {
      if let live = key as? any DependencyKey.Type, let value = live.liveValue(as: Key.Value.self) {
        return value
      }
      DependencyValues.bind(DependencyValues(storage: storage)) {
        DependencyValues.reportCurrent(
          Diagnostic(
            .unimplementedDependency,
            "no live value for dependency '\(Key.self)': conform it to DependencyKey with a "
              + "'liveValue' in the module that runs it; its test value is used"))
      }
      return Key.testValue
    }

    @usableFromInline
    func resolve<Key: TestDependencyKey>(_ key: Key.Type, in storage: Storage) -> Key.Value {
      let value =
        storage.context == .live
        ? liveValue(of: key, in: storage)
        : DependencyValues.bind(DependencyValues(storage: storage)) { Key.testValue }
      let box = values.withLock { values in
        if let raced = values[ObjectIdentifier(key)] { return raced }
        values[ObjectIdentifier(key)] = ValueBox(value)
        return values[ObjectIdentifier(key)]!
      }
      return unsafeDowncast(box as AnyObject, to: ValueBox<Key.Value>.self).value
    }
  }
}

/// A stored dependency: a ``ValueBox`` of the key's value type, behind a one-word reference.
@usableFromInline
typealias AnyValueBox = any AnyObject & Sendable

/// A dependency value in a box, so that storage holds values of any type as plain references.
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
  @usableFromInline let value: Value

  @usableFromInline
  init(_ value: Value) { self.value = value }
}

extension DependencyValues {
  /// Gives these, a new Station's values, the object that keeps the shared values it holds.
  @usableFromInline
  mutating func prepareSharing() {
    sharing = StationSharing(station: station)
  }

  /// A number no other Station in this process has.
  @usableFromInline
  static func nextStation() -> UInt64 {
    stations.add(1, ordering: .relaxed).newValue
  }
}

/// The Stations numbered so far, in this process.
private let stations = Atomic<UInt64>(0)
