/// Watching the state: slices shared by key, derived values, and reads once the mailbox is drained.
extension StateHandler: StateSource {
  @inlinable
  nonisolated func stream<Value: Sendable>(
    key: SliceKey?, slice: @escaping @Sendable (State) -> Value,
    isDuplicate: (@Sendable (Value, Value) -> Bool)?
  ) -> StateStream<Value> {
    StateStream { continuation in
      await self.subscribe(continuation, key: key, slice: slice, isDuplicate: isDuplicate)
    }
  }

  /// Adds a watcher of a slice, on the actor: its first value is the current one, and no reduction
  /// can come between that value and the next.
  @inlinable
  func subscribe<Value: Sendable>(
    _ continuation: AsyncStream<Value>.Continuation, key: SliceKey?,
    slice: @escaping @Sendable (State) -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?
  ) {
    guard !isReleased else { return continuation.finish() }
    drainMailbox()
    let (number, group) = publishers.group(key: key, slice: slice, isDuplicate: isDuplicate, joining: true)
    let current = group.current(computingFrom: currentState)
    group.attach(continuation, current: current, joined: true) { [publishers] in
      publishers.removeGroupIfEmpty(number, group) { group.isEmpty }
    }
  }

  @usableFromInline
  nonisolated func derived<Value: Sendable>(
    slice: @escaping @Sendable (State) -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?,
    owner: any Sendable
  ) -> Derived<Value> {
    let (number, group) = publishers.group(key: nil, slice: slice, isDuplicate: isDuplicate)
    return Derived(
      group: group,
      withCurrent: { body in await self.withState { body(group.current(computingFrom: $0)) } },
      detach: { [publishers] in publishers.removeGroupIfEmpty(number, group) { true } }, owner: owner)
  }

  /// The states as their readers ask for them: each reader takes the state on the actor when it
  /// wakes, so a reduction copies nothing for them (see ``LatestStates``).
  nonisolated func latestStates() -> StateStream<State> {
    let latest = self.latest
    return StateStream(
      pulling: StatePuller(
        start: {
          guard latest.addReader() else { return }
          let number = self.publishers.addListener(latest) { latest.published() }
          self.latestListener.withLock { $0 = number }
        },
        read: { await self.readLatest() },
        wait: { seen in await latest.wait(after: seen) },
        end: {
          guard latest.removeReader(), let number = self.latestListener.withLock({ $0.take() }) else {
            return
          }
          self.publishers.removeListener(number)
        }),
      subscribe: { continuation in
        await self.subscribe(continuation, key: nil, slice: { $0 }, isDuplicate: nil)
      })
  }

  /// The state now, once every action poured before has been reduced, with its version and
  /// whether the Station is gone.
  func readLatest() -> (State, UInt64, Bool) {
    drainMailbox()
    return (currentState, latest.version, isReleased)
  }

  /// Runs `body` on the actor with the state, once every action poured before has been reduced.
  func withState(_ body: @Sendable (State) -> Void) {
    drainMailbox()
    body(currentState)
  }
}
