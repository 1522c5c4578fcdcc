/// The lifetime of a Station's handler, and what a ``PourTask`` asks of it.
extension StateHandler {
  /// Whether a Station with these dependencies is watched by a test: its clock watches effects
  /// (a test clock), or its dependencies are in the test context.
  @usableFromInline
  static func makeExecutor(for dependencies: DependencyValues) -> WatchedExecutor? {
    dependencies.context == .test || dependencies.clock is any EffectWatcher ? WatchedExecutor() : nil
  }

  /// The Station was created: a clock that watches effects (a test clock) watches its effects.
  @usableFromInline
  nonisolated func stationStarted() {
    guard let executor else { return }
    (dependencies.clock as? any EffectWatcher)?.watch(executor)
  }

  /// Whether the Station has been released.
  @usableFromInline
  nonisolated var isReleased: Bool { effects.isClosed }

  /// Notes the shared values in the initial state, and republishes the state when another writes
  /// one (see ``Shared``).
  @usableFromInline
  nonisolated func startSharing(_ initialState: State) {
    guard let sharing = dependencies.sharing else { return }
    // With the Station's dependencies in force: a shared key resolved here (a file that cannot be
    // read, a name with two types) reports to the Station, as a reduction's would.
    DependencyValues.bind(dependencies) { sharing.noteShared(in: initialState) }
    // Strong, not weak: the cycle (handler, its dependencies, their sharing, this closure) lasts
    // exactly as long as the Station, whose release clears the closure (`releaseAll`). A weak
    // reference's side table is stored where LeakSanitizer cannot see a pointer to it, and was
    // reported as a leak whenever a process ended with a Station alive.
    sharing.onChange { self.requestRepublish() }
  }

  /// Another Station, or an effect, wrote a shared value this Station holds: its observers see the
  /// state again, once for a burst of writes. Nothing happens while nobody observes.
  nonisolated func requestRepublish() {
    guard publishers.isActive, !republishRequested.exchange(true, ordering: .acquiringAndReleasing) else {
      return
    }
    Task { await self.republish() }
  }

  /// Publishes the state as it is, with no reduction.
  func republish() {
    republishRequested.store(false, ordering: .releasing)
    drainMailbox()
    if publishers.isActive { publishers.publish(currentState) }
  }

  /// The Station was released: cancel every effect and refuse new ones.
  @usableFromInline
  nonisolated func stationReleased() {
    dependencies.sharing?.releaseAll()
    effects.markClosed()
    let (_, starts) = effects.update { state, after in state.close(&after) }
    startWork(detached: starts)
    publishers.finishAll()
    latest.finish()
    events.finishAll()
    onEnd?()
  }

  /// Reports a diagnostic to the Station's reporter, or to standard error.
  nonisolated func report(_ diagnostic: Diagnostic) {
    if let reporter = dependencies.reporter {
      reporter(diagnostic)
    } else {
      StandardError.print(diagnostic.description)
    }
  }
}

extension StateHandler: PourTaskHost {
  /// A pour whose reduction started no effect has none and never will: its effects are the only
  /// way more could start under its number. So a pour numbered above the last one that started an
  /// effect needs no look at the registry, whatever else runs (a timer, a subscription).
  ///
  /// A host's key kept in a folder also waits for the pour's entries to be durable: always `true`.
  @usableFromInline
  func reduce(through number: PourNumber) -> Bool {
    drainMailbox()
    return (lastPourWithEffects >= number && effects.hasPoursWithEffects) || hostedPours != nil
  }

  @usableFromInline
  nonisolated(nonsending) func waitForPour(_ pour: PourNumber) async {
    if let hostedPours {
      await effects.waitForPour(pour) { self.cancel(pour: pour) }
      return await hostedPours.acknowledged(pour)
    }
    // Parks at once. Yielding first, so that this thread might run the effect just started, made
    // the round trip slower (`dripper-bench --filter effects`: 7.3x a bare task with two yields,
    // 5.1-5.4x without, in one and two runs): each yield requeues this task behind a thread that
    // is already awake. Two other orders were measured, against this build run alternately on
    // two cores (`dripper-bench --profile-roundtrip`), and not kept: starting the pour's effects
    // only once this waiter has parked, as a bare task is spawned just before its caller waits
    // (5.6-6.5 µs a round trip against 5.5-6.6), and awaiting the effect task's `value` instead of
    // parking here (4.4-5.2 µs against 4.4-5.9). Neither changed how often the pool's threads
    // slept and woke: 0.35-0.44 context switches a round trip in every run.
    await effects.waitForPour(pour) { self.cancel(pour: pour) }
  }

  @usableFromInline
  nonisolated func isCancelled(pour: PourNumber) -> Bool {
    effects.isCancelled(pour: pour)
  }

  @usableFromInline
  nonisolated func failure(of pour: PourNumber) -> HostError? {
    hostedPours?.failure(pour)
  }

  @usableFromInline
  nonisolated func pendingEffects(of pour: PourNumber) -> [String] {
    effects.read { $0.leaves }.filter { $0.pour == pour }.map { "\($0.origin)" }
  }
}
