import Synchronization

extension DependencyValues {
  /// A number no other Station in this process has.
  @usableFromInline
  static func nextStation() -> UInt64 {
    stations.add(1, ordering: .relaxed).newValue
  }
}

/// The Stations numbered so far, in this process.
private let stations = Atomic<UInt64>(0)

extension Dripper {
  /// Publishes the changes this dripper makes to the field at `keyPath` to `shared`, and applies
  /// the values other Stations write, which arrive as `action`.
  ///
  /// ```swift
  /// Drip { state, action in
  ///   switch action {
  ///   case .sortTapped: state.settings.sort = .title; return .none
  ///   case .settingsChanged: return .none   // already applied; react here if needed
  ///   }
  /// }
  /// .sharing(\.settings, with: settings, action: .settingsChanged)
  /// ```
  ///
  /// A reduction that leaves the field different from before writes it to `shared` as it ends;
  /// `action` sets the field to the shared value (the latest, which is the one it carries unless
  /// another write overtook it), then runs this dripper. The field is copied before each
  /// reduction to compare: share small values (settings, a session), not large collections. Pair it with ``Station/share(_:with:action:)``,
  /// which delivers other Stations' changes as `action`. See ``SharedValue``.
  @inlinable
  public func sharing<Value>(
    _ keyPath: any WritableKeyPath<State, Value> & Sendable, with shared: SharedValue<Value>,
    action: CasePath<Action, Value>
  ) -> some Dripper<State, Action> {
    _SharingDripper(base: self, keyPath: keyPath, shared: shared, action: action)
  }
}

/// A dripper that keeps a field in step with a ``SharedValue``: see
/// ``Dripper/sharing(_:with:action:)``.
@usableFromInline
struct _SharingDripper<Base: Dripper, Value: Equatable & Sendable>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let base: Base
  @usableFromInline let keyPath: any WritableKeyPath<Base.State, Value> & Sendable
  @usableFromInline let shared: SharedValue<Value>
  @usableFromInline let action: CasePath<Base.Action, Value>

  @inlinable
  init(
    base: Base, keyPath: any WritableKeyPath<Base.State, Value> & Sendable, shared: SharedValue<Value>,
    action: CasePath<Base.Action, Value>
  ) {
    self.base = base
    self.keyPath = keyPath
    self.shared = shared
    self.action = action
  }

  /// Applies a delivery, or reduces and publishes a change.
  ///
  /// A delivery sets the field to the shared value as it is when the delivery is reduced, not to
  /// the value it carries: a Station may have changed the value after the delivery was poured
  /// and before it is reduced, and every Station must end at the last value written.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    if self.action.matches(action) {
      state[keyPath: keyPath] = shared.value
      return base.reduce(into: &state, action: action)
    }
    let old = state[keyPath: keyPath]
    let effect = base.reduce(into: &state, action: action)
    let new = state[keyPath: keyPath]
    if old != new { shared.write(new, from: DependencyValues.current.station) }
    return effect
  }

  /// The reduction a Station runs: over the base built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the base built once; the base's check.
  @inlinable
  public func _build() -> _Reduction<Base.State, Base.Action> {
    let (base, audit) = _BuiltDripper.building(self.base)
    let built = _SharingDripper<_BuiltDripper<Base.State, Base.Action>, Value>(
      base: base, keyPath: keyPath, shared: shared, action: action)
    return reduction(of: built, audit: audit)
  }

}

extension Station {
  /// Delivers the values other Stations (and ``SharedValue/set(_:)``) write to `shared` as
  /// `action`, and starts the field at `keyPath` at the shared value, with one `action` now.
  ///
  /// ```swift
  /// let station = Station(initialState: Todos.State()) { Todos() }
  /// station.share(\.settings, with: settings, action: .settingsChanged)
  /// ```
  ///
  /// The feature applies the action with ``Dripper/sharing(_:with:action:)``. The Station stays
  /// in the value's list until it is released (it leaves at the next write) or ``unshare(_:)`` is
  /// called.
  public func share<Value>(
    _ keyPath: any WritableKeyPath<State, Value> & Sendable, with shared: SharedValue<Value>,
    action: CasePath<Action, Value>
  ) {
    guard case .root(let handler) = core else {
      preconditionFailure("share(_:with:action:) is for a root Station: share on the parent's")
    }
    let number = handler.dependencies.station
    let current = shared.subscribe(station: number) { [weak self, weak shared] value, version in
      guard let self else { return false }
      if let shared, shared.isCurrent(version) { self.pour(action.embed(value)) }
      return true
    }
    pour(action.embed(current))
  }

  /// Stops delivering `shared`'s values to this Station.
  public func unshare<Value>(_ shared: SharedValue<Value>) {
    guard case .root(let handler) = core else { return }
    shared.unsubscribe(station: handler.dependencies.station)
  }
}
