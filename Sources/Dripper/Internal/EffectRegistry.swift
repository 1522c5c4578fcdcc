import Synchronization

/// An effect the registry keeps to start later, whatever its action type: a
/// `PendingEffect<Action>` that only the Station's interpreter opens.
///
/// The registry is not generic over the action: its code is compiled once, for this type, so that
/// the unspecialized code of a Station's effects never instantiates generic metadata for it.
struct EffectWork: Sendable {
  let base: any Sendable
}

/// The task of an effect's slot: the registry only ever cancels it.
///
/// Its type says it may throw, though no operation it runs does: `Task.detached` wraps a
/// non-throwing operation in a thunk of the throwing type the runtime takes, one more allocation
/// for every effect started (see `StateHandler.spawnTask(of:running:)`).
typealias EffectTask = Task<Void, any Error>

/// A Station's bookkeeping of its effects: ``EffectRegistryState`` behind one lock.
///
/// Each method decides under the lock, then cancels tasks and resumes continuations after
/// releasing it. Work the decision starts (a `concatenate`'s next part, an effect whose turn came)
/// is returned to the caller, the Station's interpreter, which alone knows how to start an effect.
@usableFromInline
final class EffectRegistry: Sendable {
  typealias Work = EffectWork

  private let state = Lock(EffectRegistryState<Work>())
  /// How many pours have effects in flight, so that finishing a pour without any skips the lock.
  private let poursWithEffects = Atomic<Int>(0)
  private let closed = Atomic<Bool>(false)

  init() {}

  /// Whether any pour has effects in flight: when not, finishing a pour needs no waiting.
  @usableFromInline var hasPoursWithEffects: Bool { poursWithEffects.load(ordering: .acquiring) > 0 }

  var isClosed: Bool { closed.load(ordering: .acquiring) }

  /// Runs `body` under the lock, cancels and resumes what it decided, and returns the work it
  /// started with its result.
  func update<Result: Sendable>(
    _ body: (inout EffectRegistryState<Work>, inout EffectRegistryAftermath<Work>) -> Result
  ) -> (Result, [StartWork<Work>]) {
    let (result, after) = state.withLock { state in
      var after = EffectRegistryAftermath<Work>()
      let result = body(&state, &after)
      poursWithEffects.store(state.pours.count, ordering: .releasing)
      return (result, after)
    }
    after.cancel.forEachElement { $0.cancel() }
    after.resume.forEachElement { $0.resume() }
    return (result, after.start)
  }

  /// Makes the slot of a `run` effect at the top of a reduction's effect (see
  /// `StateHandler.perform(_:pour:)`), or returns `nil` when it must not start.
  @usableFromInline
  func reserveTask(pour: PourNumber, origin: EffectOrigin) -> EffectSlotID? {
    update { state, _ in
      state.reserve(.init(role: .task, pour: pour, parent: nil, keys: SmallList(), origin: origin))
    }.0
  }

  /// Reads the state under the lock.
  func read<Result: Sendable>(_ body: (EffectRegistryState<Work>) -> Result) -> Result {
    state.withLock { body($0) }
  }

  /// Records a slot's task, cancelling it at once if the slot was cancelled meanwhile.
  func attach(_ task: EffectTask, to slot: EffectSlotID) {
    state.withLock { $0.attach(task, to: slot) }?.cancel()
  }

  func isLive(_ slot: EffectSlotID) -> Bool { state.withLock { $0.isLive(slot) } }

  /// The keys that cancel a slot, or `nil` when it was cancelled or has ended.
  func keys(ofLive slot: EffectSlotID) -> SmallList<EffectKey>? {
    state.withLock { state in state.keys(ofLive: slot) }
  }

  /// Where a slot stands, for an action one of its tasks poured.
  func liveness(_ slot: EffectSlotID) -> EffectRegistryState<Work>.Liveness {
    state.withLock { $0.liveness(slot) }
  }

  func isCancelled(pour: PourNumber) -> Bool {
    state.withLock { $0.isCancelled(pour: pour) }
  }

  /// Refuses new effects from now on; the caller cancels what runs.
  func markClosed() {
    closed.store(true, ordering: .releasing)
  }

  // MARK: - Waiting

  /// Waits until every effect of a pour has ended. Cancelling the waiting task cancels them, with
  /// `cancel`.
  ///
  /// Only a pour that may have effects comes here: the actor tells ``PourTask/finish()`` which
  /// pours started none (see `StateHandler.reduce(through:)`).
  nonisolated(nonsending) func waitForPour(_ pour: PourNumber, cancel: @Sendable () -> Void) async {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let waiting = state.withLock { $0.waitForPour(pour, continuation) }
        if !waiting { continuation.resume() }
      }
    } onCancel: {
      cancel()
    }
  }

  /// Waits until no effect is running or waiting to start; returns early if the task is
  /// cancelled.
  func waitUntilIdle() async {
    await parked(
      issue: { state.withLock { $0.idleWaiters.issue() } },
      park: { ticket, continuation in
        state.withLock {
          $0.idleWaiters.park(ticket, continuation, unless: $0.isIdle ? () : nil, cancelled: ())
        }
      },
      cancel: { ticket in state.withLock { $0.idleWaiters.cancel(ticket) } },
      cancelled: ())
  }

  // MARK: - Inspection

  /// What the registry holds, for tests and the test harness.
  struct Snapshot: Sendable, Equatable {
    var live: Int
    var isEmpty: Bool
    var isIdle: Bool
    var windows: Int
  }

  var snapshot: Snapshot {
    state.withLock {
      Snapshot(live: $0.slots.count, isEmpty: $0.isEmpty, isIdle: $0.isIdle, windows: $0.windowCount)
    }
  }
}
