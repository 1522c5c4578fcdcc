/// What identifies a slice of state, so that observers of the same slice share one computation.
@usableFromInline
struct SliceKey: Hashable, Sendable {
  /// Key paths from the root state down: a scoped Station's slices are its parent's, further in.
  @usableFromInline let path: [ChildNamespace.Location]

  @usableFromInline
  init(_ keyPath: any AnyKeyPath & Sendable) {
    path = [.keyPath(keyPath)]
  }

  private init(path: [ChildNamespace.Location]) { self.path = path }

  /// The key of `child`'s slice inside this one.
  func appending(_ child: SliceKey) -> SliceKey { SliceKey(path: path + child.path) }
}
