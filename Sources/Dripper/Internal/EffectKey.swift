/// A type-erased, `Sendable` hashable value: what `AnyHashable` would be if it were `Sendable`.
///
/// Cancellation ids and the namespaces that `ifLet` and `forEach` give their children are stored as
/// these, so that the effect registry can index them without knowing their types.
@usableFromInline
struct AnySendableHashable: Hashable, Sendable, CustomStringConvertible {
  let base: any Hashable & Sendable

  @usableFromInline
  init(_ base: some Hashable & Sendable) {
    if let already = base as? AnySendableHashable {
      self = already
    } else {
      self.base = base
    }
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.base.isEqual(to: rhs.base)
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(type(of: base)))
    base.hash(into: &hasher)
  }

  @usableFromInline
  var description: String { String(describing: base) }
}

/// Where an effect lives in a feature tree: the chain of child namespaces (an `ifLet` child, a
/// `forEach` element) from the root down.
///
/// The root namespace is empty. Ids are scoped by it, so two rows of a list that use the same
/// cancellation id never cancel each other's effects.
struct EffectNamespace: Hashable, Sendable, CustomStringConvertible {
  private(set) var path: [AnySendableHashable] = []

  static let root = EffectNamespace()

  func appending(_ component: AnySendableHashable) -> EffectNamespace {
    var copy = self
    copy.path.append(component)
    return copy
  }

  var description: String { path.map(\.description).joined(separator: "/") }
}

/// The key the effect registry indexes effects by: a user's cancellation id, or a child namespace
/// (cancelling it cancels every effect of that child), qualified by the namespace it was used in.
///
/// Its hash is computed once, when it is made: hashing the id goes through an existential, and the
/// registry hashes a key several times over an effect's life.
///
/// It is one reference to its parts, made once, so that a copy is a retain. The registry copies
/// keys all the time: into a slot and out of it, and at each dictionary lookup, which copies the
/// key out of the bucket it compares. Held inline, the id is an existential, and each copy and
/// each destruction went through the value witnesses of the key, its id and `Optional` (a
/// `SmallList` of keys is an optional key and an optional array), even for a slot with no key.
///
/// The hash sits next to the reference, not in the object, so that a lookup compares each bucket
/// it probes without reaching that bucket's object: with 100,000 ids in the registry, each such
/// reach was a cache miss. Measured over `dripper-bench --profile-cancellables`, the dictionary's
/// `find` for keys went from 444 samples of 9,976 to 163-216 of about 8,300, and the cancellable
/// effects row of `--filter effects` from 1.88x bare tasks to 1.69-1.75x in four runs (2.36x in
/// a fifth); the key's 8 more bytes cost a waiting cancellable effect 25-32 bytes (3,312-3,319
/// instead of 3,287).
struct EffectKey: Hashable, Sendable, CustomStringConvertible {
  enum Kind: Hashable, Sendable {
    /// A cancellation id the user gave with `cancellable(id:)` or `cancel(id:)`.
    case id(AnySendableHashable)
    /// Every effect of a child feature: the namespace itself.
    case namespace
  }

  /// The key's parts, in one object.
  private final class Storage: Sendable {
    let namespace: EffectNamespace
    let kind: Kind

    init(namespace: EffectNamespace, kind: Kind) {
      self.namespace = namespace
      self.kind = kind
    }
  }

  private let storage: Storage
  private let hash: Int

  init(namespace: EffectNamespace, kind: Kind) {
    storage = Storage(namespace: namespace, kind: kind)
    var hasher = Hasher()
    hasher.combine(namespace)
    hasher.combine(kind)
    hash = hasher.finalize()
  }

  var namespace: EffectNamespace { storage.namespace }
  var kind: Kind { storage.kind }

  static func == (lhs: EffectKey, rhs: EffectKey) -> Bool {
    lhs.hash == rhs.hash
      && (lhs.storage === rhs.storage || (lhs.kind == rhs.kind && lhs.namespace == rhs.namespace))
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(hash)
  }

  var description: String {
    switch kind {
    case .id(let id): namespace.path.isEmpty ? "\(id)" : "\(namespace)/\(id)"
    case .namespace: "\(namespace)/*"
    }
  }
}
