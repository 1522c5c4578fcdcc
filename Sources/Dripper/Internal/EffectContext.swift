/// Where an effect runs: the pour it belongs to, the child feature it comes from, and the keys that
/// cancel it.
@usableFromInline
struct EffectContext: Sendable {
  /// The pour whose ``PourTask`` tracks the effect.
  let pour: PourNumber
  /// The child feature the effect comes from; ids are qualified by it.
  private(set) var namespace = EffectNamespace.root
  /// Every key that cancels the effect: the ids it runs under and its features' namespaces.
  private(set) var keys = SmallList<EffectKey>()
  /// Keys cancelled while this part of a `concatenate` waited to start: what runs under them is
  /// skipped.
  var skipping: Set<EffectKey> = []

  @usableFromInline
  init(pour: PourNumber) {
    self.pour = pour
  }

  /// The context of an effect of `pour` running under `keys`: its namespace is the innermost
  /// feature's, which the last key carries (a namespace is entered, and an id used in it, in
  /// order from the root down).
  init(pour: PourNumber, keys: SmallList<EffectKey>) {
    self.pour = pour
    self.keys = keys
    keys.forEachElement { namespace = $0.namespace }
  }

  /// The key of a cancellation id used in this context.
  func key(for id: AnySendableHashable) -> EffectKey {
    EffectKey(namespace: namespace, kind: .id(id))
  }

  /// The key cancelling every effect of a child namespace of this context.
  func namespaceKey(for component: AnySendableHashable) -> EffectKey {
    EffectKey(namespace: namespace.appending(component), kind: .namespace)
  }

  /// The key a `cancel` effect cancels; `nil` for a cancellation of absent children, which names
  /// no single key.
  func key(for cancellation: EffectCancellation) -> EffectKey? {
    switch cancellation {
    case .id(let id): key(for: id)
    case .namespace(let component): namespaceKey(for: component)
    case .absentChildren: nil
    }
  }

  /// The context of an effect run under `key`; an id nested under itself is carried once.
  func adding(_ key: EffectKey) -> EffectContext {
    guard !keys.contains(key) else { return self }
    var copy = self
    copy.keys.append(key)
    return copy
  }

  /// The context of a child feature's effect.
  func entering(_ component: AnySendableHashable) -> EffectContext {
    var copy = adding(namespaceKey(for: component))
    copy.namespace = namespace.appending(component)
    return copy
  }

  /// Whether what runs under `key` must be skipped.
  func skips(_ key: EffectKey) -> Bool {
    !skipping.isEmpty && skipping.contains(key)
  }
}

/// An effect the registry starts later, with where it runs: a part of a `concatenate`, an effect
/// waiting its turn under an id, a throttled effect held for the end of its window.
struct PendingEffect<Action: Sendable>: Sendable {
  let effect: Effect<Action>
  let context: EffectContext
}

extension Effect {
  /// Whether the effect completes within the reduction that returned it: it starts no task and
  /// waits for nothing, so the parts of a `concatenate` of such effects can start in order at once.
  var isImmediate: Bool {
    switch operation {
    case .none, .send, .cancel, .announce, .host: true
    case .merge(let effects), .concatenate(let effects): effects.allSatisfy(\.isImmediate)
    case .namespaced(_, let effect): effect.isImmediate
    case .run, .cancellable, .delayed, .throttled: false
    }
  }

  /// The keys that cancel parts of this effect, used in `namespace`: a `concatenate` keeps them
  /// as the upcoming keys of its parts that have not started, so that cancelling one skips what would run under it.
  func cancellationKeys(in namespace: EffectNamespace, into keys: inout [EffectKey]) {
    switch operation {
    case .cancellable(let admission, let effect):
      keys.append(EffectKey(namespace: namespace, kind: .id(admission.id)))
      effect.cancellationKeys(in: namespace, into: &keys)
    case .throttled(let throttle, let effect):
      keys.append(EffectKey(namespace: namespace, kind: .id(throttle.id)))
      effect.cancellationKeys(in: namespace, into: &keys)
    case .namespaced(let component, let effect):
      let inner = namespace.appending(component)
      keys.append(EffectKey(namespace: inner, kind: .namespace))
      effect.cancellationKeys(in: inner, into: &keys)
    case .merge(let effects), .concatenate(let effects):
      for effect in effects { effect.cancellationKeys(in: namespace, into: &keys) }
    case .delayed(_, let effect):
      effect.cancellationKeys(in: namespace, into: &keys)
    case .none, .send, .run, .cancel, .announce, .host:
      break
    }
  }
}

/// Measures the time elapsed on `clock` since the call.
func stopwatch(_ clock: any Clock<Duration>) -> @Sendable () -> Duration {
  func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
  }
  return start(clock)
}
