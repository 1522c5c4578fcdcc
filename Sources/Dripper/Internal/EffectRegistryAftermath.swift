/// Work to start under a slot once the lock is released: the next part of a `concatenate`, an
/// effect whose turn came, a throttled effect whose window ended. The slot carries a guard that
/// the starter releases once the work has started.
struct StartWork<Work> {
  let work: Work
  let slot: EffectSlotID
  /// Keys cancelled while the work waited: what would run under them is skipped.
  var skipping: Set<EffectKey> = []
}

/// What the registry must do once its lock is released: cancel tasks, resume continuations,
/// start work. Acting outside the lock keeps resumed tasks from running into it.
struct EffectRegistryAftermath<Work> {
  var cancel = SmallList<EffectTask>()
  var resume = SmallList<UnsafeContinuation<Void, Never>>()
  var start: [StartWork<Work>] = []

  var isEmpty: Bool { cancel.isEmpty && resume.isEmpty && start.isEmpty }
}

extension StartWork: Sendable where Work: Sendable {}
extension EffectRegistryAftermath: Sendable where Work: Sendable {}
