/// The keys of a ``StationHost`` and where each is in its life: a pure state machine, kept behind
/// the host's lock, whose every event returns what the host must do once it releases it (activate
/// a key, passivate some, post buffered pours, fail them).
///
/// A key is, at any moment, one of:
/// - **resident**: its Station is live, in the list of residents from the most recently used;
/// - **activating**: its Station is being made (from storage, or from a passive value), and pours
///   wait in its buffer, in order;
/// - **passivating**: its Station is closing (a snapshot, the journal closed), and pours wait in
///   its buffer: once it is closed, an empty buffer ends the key's slot, a full one activates it
///   again;
/// - **passive**: its state value, with no Station, for an in-memory host;
/// - **failed**: its storage could not be read: pours fail until `retry` is due;
/// - or absent: never seen, or passivated to storage.
///
/// So two Stations of one key never live at once, and a key's pours reach its Stations in the
/// order they were made, whatever activations and passivations come between.
///
/// Generic over what it holds (a Station, a state value, a pour waiting) so that its tests drive it
/// with plain values, synchronously.
@usableFromInline
struct HostTable<Key: Hashable, Resident, Stored, Pending> {
  @usableFromInline
  enum Slot {
    /// Live, at `node` in the list of residents.
    case resident(Resident, node: Int)
    case activating(buffer: [Pending])
    case passivating(Resident, buffer: [Pending], evicted: Bool)
    /// Boxed: a stored state is larger than the other cases, and every key's slot, resident or
    /// not, is as large as the largest case.
    indirect case passive(Stored)
    case failed(JournalError, retryAt: Int64)
  }

  /// What a use of a key (a pour, a read) is to do.
  @usableFromInline
  enum PourDecision {
    /// Post it to the resident Station, under the host's lock.
    case post(Resident)
    /// Add it to the key's buffer (``buffer(_:for:)``), under the host's lock.
    case buffer
    /// The key is now activating: buffer the pour, then, after the lock, make its Station
    /// (from `stored` if it was passive, else from storage) and passivate `evicting`.
    case activate(stored: Stored?, evicting: [(key: Key, resident: Resident)])
    /// The key's storage failed: fail the pour with the error.
    case fail(JournalError)
  }

  /// A failed key's slot: its error, and when it is read again (on the host's clock, in
  /// milliseconds).
  @usableFromInline
  struct Failure {
    @usableFromInline var error: JournalError
    @usableFromInline var retryAt: Int64
  }

  /// A node of the list of residents, most recently used first, linked by index.
  @usableFromInline
  struct Node {
    @usableFromInline var key: Key
    /// The key's Station, while it is resident.
    @usableFromInline var resident: Resident?
    @usableFromInline var previous = -1
    @usableFromInline var next = -1
    /// When the key was last seen in use (a pour, a read, a sweep that found it busy), on the
    /// host's coarse clock (see ``use(_:at:isIdle:)``).
    @usableFromInline var lastUsed: Int64
    /// Observers and requests in flight: a pinned key is never passivated.
    @usableFromInline var pins = 0

    @usableFromInline
    init(key: Key, resident: Resident, lastUsed: Int64) {
      self.key = key
      self.resident = resident
      self.lastUsed = lastUsed
    }
  }

  @usableFromInline private(set) var slots: [Key: Slot] = [:]
  @usableFromInline var nodes: [Node] = []
  /// The node of each resident key.
  @usableFromInline var nodeOfKey: [Key: Int] = [:]
  var freeNodes: [Int] = []
  @usableFromInline var head = -1
  @usableFromInline var tail = -1
  /// The key the last pour found resident, and its node: a burst of pours to one key skips the
  /// hash of the key, the most of a lookup. Forgotten when the key leaves the residents.
  @usableFromInline var lastPosted: (key: Key, node: Int)?
  /// The most keys resident or activating before the least recently used idle ones are
  /// passivated.
  let maximumResident: Int
  private(set) var counts = Counts()

  struct Counts: Equatable {
    var resident = 0
    var activating = 0
    var passivating = 0
    var passive = 0
    var failed = 0
    var activations = 0
    var passivations = 0
    var evictions = 0
  }

  init(maximumResident: Int) {
    self.maximumResident = max(1, maximumResident)
  }

  // MARK: - Pours

  /// Posts with `post` to `key`'s Station, the most recently used now, if it is resident: a pour's
  /// whole way through the table, one lookup of the key.
  @inlinable
  mutating func postIfResident<Result>(_ key: Key, at now: Int64, _ post: (Resident) -> Result) -> Result? {
    // The node's index, then the Station in the node: no copy of the key's slot, an enum whose
    // copy cost more than the rest of the lookup.
    let node: Int
    if let last = lastPosted, last.key == key {
      node = last.node
    } else {
      guard let found = nodeOfKey[key] else { return nil }
      node = found
      lastPosted = (key, found)
    }
    guard let resident = nodes[node].resident else { return nil }
    touch(node, at: now)
    return post(resident)
  }

  /// A use of `key` at `now`: a pour, or a read of its Station; `isIdle` tells whether a resident
  /// Station has nothing to do, for choosing whom to evict. One lookup of the key for a resident
  /// one.
  ///
  /// `now` is the host's coarse clock, in milliseconds: the time of its timer's last wake, read
  /// with one atomic load where a clock's reading would cost more than the rest of a pour. It is
  /// behind by up to a sweep's interval, which passivation allows for (see ``sweep(at:idleAfter:isIdle:)``).
  ///
  /// A failed key is retried at its time exactly: `preciseNow` reads the clock, which only a failed
  /// key's use does.
  mutating func use(
    _ key: Key, at now: Int64, preciseNow: () -> Int64, isIdle: (Resident) -> Bool
  ) -> PourDecision {
    switch slots[key] {
    case .resident(let resident, let node)?:
      touch(node, at: now)
      return .post(resident)
    case .activating?, .passivating?:
      return .buffer
    case .failed(let error, let retryAt)?:
      if preciseNow() < retryAt { return .fail(error) }
      counts.failed -= 1
      return startActivation(of: key, stored: nil, isIdle: isIdle)
    case .passive(let stored)?:
      counts.passive -= 1
      return startActivation(of: key, stored: stored, isIdle: isIdle)
    case nil:
      return startActivation(of: key, stored: nil, isIdle: isIdle)
    }
  }

  /// Adds a pour to the buffer of an activating or passivating key.
  mutating func buffer(_ pending: Pending, for key: Key) {
    switch slots[key] {
    case .activating(var buffer)?:
      buffer.append(pending)
      slots[key] = .activating(buffer: buffer)
    case .passivating(let resident, var buffer, let evicted)?:
      buffer.append(pending)
      slots[key] = .passivating(resident, buffer: buffer, evicted: evicted)
    default:
      preconditionFailure("a pour was buffered for a key that is neither activating nor passivating")
    }
  }

  private mutating func startActivation(of key: Key, stored: Stored?, isIdle: (Resident) -> Bool)
    -> PourDecision
  {
    slots[key] = .activating(buffer: [])
    counts.activating += 1
    return .activate(stored: stored, evicting: evictions(isIdle: isIdle))
  }

  /// The least recently used idle residents to passivate so that no more than
  /// ``maximumResident`` are resident or activating, now marked passivating. Busy ones stay: the
  /// cap is exceeded until they are idle, when the host asks again.
  ///
  /// It looks at a bounded number of the least recently used residents (four for each key it wants,
  /// at most ``evictionsAtOnce`` keys at once), so that a use costs the same however many keys are
  /// busy: under a storm of activations, when most residents have a pour still waiting, looking at
  /// every one for each activation made the host quadratic (40,000 keys through a cap of 1,000:
  /// minutes). Keys it does not reach are found by the next uses, and by ``busyAboveCap(isIdle:)``.
  mutating func evictions(isIdle: (Resident) -> Bool) -> [(key: Key, resident: Resident)] {
    var wanted = min(counts.resident + counts.activating - maximumResident, Self.evictionsAtOnce)
    guard wanted > 0 else { return [] }
    var looks = wanted * 4
    var victims: [(key: Key, resident: Resident)] = []
    var index = tail
    while wanted > 0, looks > 0, index >= 0 {
      let node = nodes[index]
      index = node.previous
      looks -= 1
      guard node.pins == 0, let resident = node.resident, isIdle(resident) else { continue }
      beginPassivation(of: node.key, resident, evicted: true)
      victims.append((node.key, resident))
      wanted -= 1
    }
    return victims
  }

  /// The most keys one use passivates to make room, or waits on to: see ``evictions(isIdle:)``.
  static var evictionsAtOnce: Int { 16 }

  // MARK: - Activation

  /// The key's Station is live at `now`: it is resident, the most recently used. Returns the pours
  /// that waited, to post in order before releasing the lock.
  mutating func activated(_ key: Key, _ resident: Resident, at now: Int64 = 0) -> [Pending] {
    guard case .activating(let buffer)? = slots[key] else { return [] }
    slots[key] = .resident(resident, node: link(key, resident, at: now))
    counts.activating -= 1
    counts.resident += 1
    counts.activations += 1
    return buffer
  }

  /// The residents above the cap that are busy, least recently used first: those the host waits
  /// on, to passivate them as soon as they are idle. Keys still activating are not counted: they
  /// make room for themselves as they come (see ``evictions(isIdle:)``).
  ///
  /// At most ``evictionsAtOnce`` of them, the least recently used: each, once idle, makes the host
  /// look again.
  func busyAboveCap(isIdle: (Resident) -> Bool) -> [(key: Key, resident: Resident)] {
    var excess = min(counts.resident - maximumResident, Self.evictionsAtOnce)
    var busy: [(key: Key, resident: Resident)] = []
    var index = tail
    while excess > 0, index >= 0 {
      let node = nodes[index]
      index = node.previous
      guard let resident = node.resident else { continue }
      if node.pins > 0 || !isIdle(resident) { busy.append((node.key, resident)) }
      excess -= 1
    }
    return busy
  }

  /// The key's storage could not be read: it fails pours until `retryAt`. Returns the pours that
  /// waited, to fail.
  mutating func activationFailed(_ key: Key, _ error: JournalError, retryAt: Int64) -> [Pending] {
    guard case .activating(let buffer)? = slots[key] else { return [] }
    slots[key] = .failed(error, retryAt: retryAt)
    counts.activating -= 1
    counts.failed += 1
    return buffer
  }

  // MARK: - Passivation

  /// A sweep of the residents at `now`: returns those idle (by `isIdle`, and not pinned) and not
  /// used for `idleAfter`, now passivating. A key found busy counts as used now.
  ///
  /// A use is stamped with the host's coarse clock, which lags by up to a sweep's interval, so
  /// the host passes `idleAfter` plus that interval: a key is never passivated before it has been
  /// idle for the whole period, whatever the lag.
  mutating func sweep(at now: Int64, idleAfter: Int64, isIdle: (Resident) -> Bool) -> [(
    key: Key, resident: Resident
  )] {
    var idle: [(key: Key, resident: Resident)] = []
    var index = head
    while index >= 0 {
      let key = nodes[index].key
      let next = nodes[index].next
      if nodes[index].pins == 0, case .resident(let resident, _)? = slots[key], isIdle(resident) {
        if now - nodes[index].lastUsed >= idleAfter {
          beginPassivation(of: key, resident, evicted: false)
          idle.append((key, resident))
        }
      } else {
        // Busy: used now, the most recently, so that the list stays in the order of use.
        touch(index, at: max(nodes[index].lastUsed, now))
      }
      index = next
    }
    return idle
  }

  /// When the least recently used resident has been idle for `idleAfter`, if it is idle then: the
  /// next sweep that may passivate a key.
  func nextIdleDeadline(idleAfter: Int64) -> Int64? {
    tail >= 0 ? nodes[tail].lastUsed + idleAfter : nil
  }

  /// Passivates `key` now if it is resident (a host closing, a caller's request): marks it
  /// passivating and returns its Station.
  mutating func passivate(_ key: Key) -> Resident? {
    guard case .resident(let resident, _)? = slots[key] else { return nil }
    beginPassivation(of: key, resident, evicted: false)
    return resident
  }

  mutating func beginPassivation(of key: Key, _ resident: Resident, evicted: Bool) {
    unlink(key)
    slots[key] = .passivating(resident, buffer: [], evicted: evicted)
    counts.resident -= 1
    counts.passivating += 1
  }

  /// A passivation given up (the key got busy before it closed): the key is resident again, the
  /// most recently used, and the pours that waited are returned, to post in order before
  /// releasing the lock.
  mutating func cancelPassivation(_ key: Key, at now: Int64) -> [Pending] {
    guard case .passivating(let resident, let buffer, _)? = slots[key] else { return [] }
    slots[key] = .resident(resident, node: link(key, resident, at: now))
    counts.passivating -= 1
    counts.resident += 1
    return buffer
  }

  /// Whether a passivating key may close: no pour came meanwhile. When one did, the key is
  /// resident again, and the pours that waited are returned, to post in order before releasing
  /// the lock.
  mutating func mayClose(_ key: Key, at now: Int64) -> (close: Bool, buffer: [Pending]) {
    guard case .passivating(let resident, let buffer, _)? = slots[key] else { return (false, []) }
    if buffer.isEmpty { return (true, []) }
    slots[key] = .resident(resident, node: link(key, resident, at: now))
    counts.passivating -= 1
    counts.resident += 1
    return (false, buffer)
  }

  /// The key's Station is closed, and `stored` is what stays of it (an in-memory host's state
  /// value; `nil` for storage on disk). Returns the pours that came meanwhile: when there are
  /// some, the key is activating again, and the host makes its Station anew from `stored` or
  /// storage.
  mutating func closed(_ key: Key, stored: Stored?) -> [Pending]? {
    guard case .passivating(_, let buffer, let evicted)? = slots[key] else { return nil }
    counts.passivating -= 1
    counts.passivations += 1
    if evicted { counts.evictions += 1 }
    guard buffer.isEmpty else {
      slots[key] = .activating(buffer: buffer)
      counts.activating += 1
      return buffer
    }
    if let stored {
      slots[key] = .passive(stored)
      counts.passive += 1
    } else {
      slots[key] = nil
    }
    return nil
  }

  /// The storage of `key`'s live Station, the one `isIt` recognizes, failed: the key fails its
  /// pours until `retryAt`, and its Station is dropped. Returns whether the key was that
  /// Station's, resident or passivating, and the pours that waited for it, to fail.
  mutating func failLive(
    _ key: Key, _ error: JournalError, retryAt: Int64, isIt: (Resident) -> Bool
  ) -> (failed: Bool, waiting: [Pending]) {
    switch slots[key] {
    case .resident(let resident, _)? where isIt(resident):
      unlink(key)
      counts.resident -= 1
      slots[key] = .failed(error, retryAt: retryAt)
      counts.failed += 1
      return (true, [])
    case .passivating(let resident, let buffer, _)? where isIt(resident):
      counts.passivating -= 1
      slots[key] = .failed(error, retryAt: retryAt)
      counts.failed += 1
      return (true, buffer)
    default:
      return (false, [])
    }
  }

  // MARK: - Pins

  /// Pins a resident key: an observer, or a request awaiting its receipt. Returns whether it was
  /// resident.
  mutating func pin(_ key: Key) -> Bool {
    guard let index = nodeOfKey[key] else { return false }
    nodes[index].pins += 1
    return true
  }

  /// Removes a pin at `now`: the key was in use until then.
  mutating func unpin(_ key: Key, at now: Int64) {
    guard let index = nodeOfKey[key], nodes[index].pins > 0 else { return }
    nodes[index].pins -= 1
    touch(index, at: max(nodes[index].lastUsed, now))
  }

  // MARK: - Reading

  /// The resident Station of `key`, if it is resident.
  func resident(_ key: Key) -> Resident? {
    if case .resident(let resident, _)? = slots[key] { resident } else { nil }
  }

  /// The keys resident now, most recently used first.
  var residentKeys: [Key] {
    var keys: [Key] = []
    var index = head
    while index >= 0 {
      keys.append(nodes[index].key)
      index = nodes[index].next
    }
    return keys
  }
}
