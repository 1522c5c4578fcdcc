/// Where an effect runs: the pour it belongs to, the child feature it comes from, and the keys that
/// cancel it.
@usableFromInline
struct EffectContext: Sendable {
  /// The pour whose ``PourTask`` tracks the effect.
  let group: EffectGroupID
  /// The child feature the effect comes from; ids are qualified by it.
  private(set) var namespace = EffectNamespace.root
  /// Every key that cancels the effect: the ids it runs under and its features' namespaces.
  private(set) var keys: [EffectKey] = []

  @usableFromInline
  init(group: EffectGroupID) {
    self.group = group
  }

  /// The key of a cancellation id used in this context.
  func key(for id: AnySendableHashable) -> EffectKey {
    EffectKey(namespace: namespace, kind: .id(id))
  }

  /// The key cancelling every effect of a child namespace of this context.
  func namespaceKey(for component: AnySendableHashable) -> EffectKey {
    EffectKey(namespace: namespace.appending(component), kind: .namespace)
  }

  /// The context of an effect run under `key`.
  func adding(_ key: EffectKey) -> EffectContext {
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
}

extension Effect {
  /// Whether the effect completes within the reduction: it starts no task.
  var isImmediate: Bool {
    switch operation {
    case .none, .send, .cancel, .cancelNamespace, .report, .emit: true
    case .merge(let effects), .concatenate(let effects): effects.allSatisfy(\.isImmediate)
    case .namespaced(_, let effect): effect.isImmediate
    case .run, .cancellable, .delayed, .throttled: false
    }
  }

  /// The keys cancelling parts of this effect, used in `namespace`: a `concatenate` holds them for
  /// its parts that have not started, so that cancelling one skips its part.
  func cancellationKeys(in namespace: EffectNamespace) -> [EffectKey] {
    switch operation {
    case .cancellable(let id, _, let effect), .throttled(let id, _, let effect):
      [EffectKey(namespace: namespace, kind: .id(id))] + effect.cancellationKeys(in: namespace)
    case .namespaced(let component, let effect):
      [EffectKey(namespace: namespace.appending(component), kind: .namespace)]
        + effect.cancellationKeys(in: namespace.appending(component))
    case .merge(let effects), .concatenate(let effects):
      effects.flatMap { $0.cancellationKeys(in: namespace) }
    case .delayed(_, let effect): effect.cancellationKeys(in: namespace)
    case .none, .send, .run, .cancel, .cancelNamespace, .report, .emit: []
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
