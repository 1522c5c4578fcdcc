#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ``SharedValue`` whose lock this thread holds while the body of a write runs: what a read of
/// the value on the same thread returns, and what a Station that starts holding the value meanwhile
/// is kept as, until the write ends.
///
/// TCA's SyncUpDetail deletes with `$syncUps.withLock { $0.remove(id: state.syncUp.id) }`, where
/// `syncUp` is derived from the list: the read inside the write takes the value's lock again. A
/// `Mutex` is not recursive, and that read trapped. A write records its value here, in a node on
/// its own stack frame, linked from a thread-local; a read on this thread finds it and returns the
/// value as the lock holds it, without taking the lock. Only this thread can find it, so a read
/// from another thread waits for the lock, as before.
@usableFromInline
struct HeldShare {
  /// The shared value.
  @usableFromInline let root: ObjectIdentifier
  /// The value as the lock holds it: a `Value` of the root's type, alive for the body's length.
  @usableFromInline let value: UnsafeRawPointer
  /// Stations that started holding the value (`true`) or let go of it (`false`) while the body
  /// ran: applied by the write once the body returns, still under the lock.
  @usableFromInline var holders: [(holder: StationSharing, holds: Bool)] = []
  /// The node of the write this one runs inside (of another value), if any.
  @usableFromInline let outer: UnsafeMutableRawPointer?
}

@usableFromInline
enum HeldShares {
  /// The node of the write of `root` running on this thread, if one is.
  @usableFromInline
  static func find(_ root: AnyObject) -> UnsafeMutablePointer<HeldShare>? {
    let id = ObjectIdentifier(root)
    var node = pthread_getspecific(heldKey)
    while let current = node {
      let share = current.assumingMemoryBound(to: HeldShare.self)
      if share.pointee.root == id { return share }
      node = share.pointee.outer
    }
    return nil
  }

  /// Runs `body` with `root`'s value at `value` known to this thread as held; returns what it
  /// returns and the holders that changed meanwhile.
  @usableFromInline
  static func holding<Result>(
    _ root: AnyObject, value: UnsafeRawPointer, _ body: () -> Result
  ) -> (Result, [(holder: StationSharing, holds: Bool)]) {
    let outer = pthread_getspecific(heldKey)
    return withUnsafeTemporaryAllocation(of: HeldShare.self, capacity: 1) { node in
      let share = node.baseAddress!
      share.initialize(to: HeldShare(root: ObjectIdentifier(root), value: value, outer: outer))
      pthread_setspecific(heldKey, share)
      let result = body()
      pthread_setspecific(heldKey, outer)
      let holders = share.move().holders
      return (result, holders)
    }
  }
}

/// The thread-local's key: the innermost write's node, which lives on that write's stack.
private let heldKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key, nil)
  precondition(status == 0, "Dripper could not create its thread-local key (pthread_key_create: \(status))")
  return key
}()
