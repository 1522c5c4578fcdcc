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
  /// The values that ``SharedKey``s name in this Station.
  @usableFromInline let keys = SharedKeys()
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
        note(shared.sharedRoot(in: self))
        return
      }
      let mirror = Mirror(reflecting: value)
      switch mirror.displayStyle {
      case .collection?, .dictionary?, .set?: return
      default: break
      }
      for child in mirror.children { visit(child.value, depth: depth + 1) }
    }
    // A host's key: only the feature's state can hold a shared value, and the request window
    // and the reminders beside it are many values to reflect on for nothing.
    visit((value as? any WrapsFeatureState)?.featureState ?? value, depth: 0)
  }
}

/// A state that wraps a feature's state with values that never hold a ``Shared``: what a Station
/// looks through for its shared values is the feature's state alone.
protocol WrapsFeatureState {
  var featureState: Any { get }
}

/// A ``Shared`` of any type, as a Station finds the shared values in its state.
protocol AnySharedHolder {
  /// The value it holds: a key not resolved yet is resolved in `sharing`'s Station.
  func sharedRoot(in sharing: StationSharing) -> any AnySharedRoot
}

extension Shared: AnySharedHolder {
  func sharedRoot(in sharing: StationSharing) -> any AnySharedRoot { box.anchor.root(in: sharing) }
}

extension Station {
  /// The shared values the Station holds, as they are now: what a test compares its first step
  /// with.
  package var sharedSnapshot: SharedSnapshot {
    guard case .root(let handler) = core else { return SharedSnapshot() }
    return handler.dependencies.sharing?.snapshot() ?? SharedSnapshot()
  }

  /// `values` with the Station's shared keys in force: a test's assertion that makes a state
  /// holding a ``SharedKey`` finds the value the key names in the Station, as the Station's own
  /// reductions do.
  package func lendingSharedKeys(to values: DependencyValues) -> DependencyValues {
    guard case .root(let handler) = core else { return values }
    var values = values
    values.sharing = handler.dependencies.sharing
    return values
  }
}
