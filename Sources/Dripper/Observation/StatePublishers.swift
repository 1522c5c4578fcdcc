public import Synchronization

/// The slice groups of a Station, published to after each reduction.
///
/// With nothing subscribed, a reduction pays one atomic load. Subscribing and publishing happen on
/// the `StateHandler`; ending a subscription can happen anywhere. Adding and removing a group cost
/// O(1), however many there are.
@usableFromInline
final class StatePublishers<State: Sendable>: Sendable {
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline let group: any AnyObject & Sendable
    @usableFromInline let receive: @Sendable (State) -> Void
    @usableFromInline let key: SliceKey?

    @inlinable
    init(group: any AnyObject & Sendable, receive: @escaping @Sendable (State) -> Void, key: SliceKey?) {
      self.group = group
      self.receive = receive
      self.key = key
    }
  }

  @usableFromInline
  struct Registry {
    @usableFromInline var entries = MemberList<Entry>()
    @usableFromInline var keyed: [SliceKey: UInt64] = [:]
    /// The Station is gone: groups made from now on are finished at once.
    @usableFromInline var isClosed = false

    @usableFromInline
    init() {}
  }

  @usableFromInline let registry = Lock(Registry())
  /// Read after every reduction.
  @usableFromInline let groupCount = Atomic<Int>(0)
  /// Keeps `groupCount` off the line of whatever the allocator places next: often the
  /// `StateHandler`, whose first line every synchronous pour writes (retaining it for its
  /// `PourTask`). Sharing it made one Station in eight a third slower (`dripper-bench --filter
  /// core`, the layout rows).
  @usableFromInline let trailingGap = ContentionGap()

  @usableFromInline
  init() {}

  /// Whether anyone watches: checked after every reduction.
  @inlinable
  var isActive: Bool { groupCount.load(ordering: .relaxed) > 0 }

  /// Tells every group of a new state.
  @inlinable
  func publish(_ state: State) {
    let entries = registry.withLock { $0.entries.members }
    for entry in entries { entry.receive(state) }
  }

  /// The group of `key`, creating it if needed; a `nil` key always makes a new group. Once the
  /// Station is gone, the group returned is finished: watchers added to it end at once.
  ///
  /// With `joining`, the group keeps a place for one watcher until it is attached with `joined`:
  /// found in the registry's lock, the group cannot be removed, by its last watcher leaving on
  /// another thread, before the new one is added (which would leave it watching a group that is
  /// no longer published to).
  @inlinable
  func group<Value: Sendable>(
    key: SliceKey?, slice: @escaping @Sendable (State) -> Value,
    isDuplicate: (@Sendable (Value, Value) -> Bool)?, joining: Bool = false
  ) -> (number: UInt64, group: SliceGroup<State, Value>) {
    let (number, group, isClosed) = registry.withLock { registry in
      if let key, let number = registry.keyed[key],
        let group = registry.entries[number]?.group as? SliceGroup<State, Value>
      {
        if joining { group.members.withLock { $0.joining += 1 } }
        return (number, group, false)
      }
      let group = SliceGroup(slice: slice, isDuplicate: isDuplicate)
      if joining { group.members.withLock { $0.joining += 1 } }
      guard !registry.isClosed else { return (UInt64.max, group, true) }
      let number = registry.entries.add(
        Entry(group: group, receive: { [group] in group.receive($0) }, key: key))
      if let key { registry.keyed[key] = number }
      groupCount.store(registry.entries.count, ordering: .relaxed)
      return (number, group, false)
    }
    if isClosed { group.finishAll() }
    return (number, group)
  }

  /// Adds a listener told of each new state without being given it (see ``LatestStates``); returns
  /// its number for ``removeListener(_:)``, or `nil` once the Station is gone.
  func addListener(_ listener: any AnyObject & Sendable, receive: @escaping @Sendable () -> Void) -> UInt64? {
    registry.withLock { registry in
      guard !registry.isClosed else { return nil }
      let number = registry.entries.add(Entry(group: listener, receive: { _ in receive() }, key: nil))
      groupCount.store(registry.entries.count, ordering: .relaxed)
      return number
    }
  }

  /// Removes a listener.
  func removeListener(_ number: UInt64) {
    registry.withLock { registry in
      registry.entries.remove(number)
      groupCount.store(registry.entries.count, ordering: .relaxed)
    }
  }

  /// Removes a group, if it has no watchers left.
  @usableFromInline
  func removeGroupIfEmpty(_ number: UInt64, _ group: AnyObject, isEmpty: () -> Bool) {
    registry.withLock { registry in
      guard isEmpty(), registry.entries[number]?.group === group,
        let entry = registry.entries.remove(number)
      else { return }
      if let key = entry.key { registry.keyed[key] = nil }
      groupCount.store(registry.entries.count, ordering: .relaxed)
    }
  }

  /// Ends every stream of the Station's state, and those subscribed from now on: the Station is
  /// gone.
  func finishAll() {
    let entries = registry.withLock { registry in
      registry.isClosed = true
      registry.keyed.removeAll()
      groupCount.store(0, ordering: .relaxed)
      return registry.entries.removeAll()
    }
    for entry in entries { (entry.group as? any Finishing)?.finishAll() }
  }

  /// The number of groups, for tests.
  var count: Int { groupCount.load(ordering: .relaxed) }
}
