import Dripper
import Foundation
import Synchronization

/// An action poured by the test or received from an effect: what a ``TestStation``'s Station
/// runs.
enum TestAction<Action: Sendable>: Sendable {
  case poured(Action)
  case received(Action)
  /// An action of a journal ``TestStation/replay(_:hashing:decode:fileID:filePath:line:column:)``
  /// folds: reduced as poured, with its effects dropped (what they poured is in the journal).
  case replayed(Action)
}

/// One reduction: its action, where it came from, and the state it left.
struct Reduction<State: Sendable, Action: Sendable>: Sendable {
  let action: Action
  let wasReceived: Bool
  let state: State
  /// The shared values the Station holds, as the reduction left them.
  let shared: SharedSnapshot
  /// What the feature replied (see `Effect.reply(_:)`), if it did.
  var reply: (any Sendable)? = nil

  /// The state and the shared values the reduction left.
  var snapshot: Snapshot<State> { Snapshot(state: state, shared: shared) }
}

/// A state as one step of a test left it, with the values of the shared values it holds then
/// (they are held by reference, and change after the step: see ``Shared``).
struct Snapshot<State: Sendable>: Sendable {
  var state: State
  var shared: SharedSnapshot
}

/// Every reduction of a ``TestStation``'s Station, in order, with waiters for the next.
final class ReductionLog<State: Sendable, Action: Sendable>: Sendable {
  private struct Storage {
    var reductions: [Reduction<State, Action>] = []
    var waiters = ParkedWaiters<Void>()
  }

  private let storage = Lock(Storage())

  func append(_ reduction: Reduction<State, Action>) {
    let waiters = storage.withLock { storage in
      storage.reductions.append(reduction)
      return storage.waiters.takeAll()
    }
    for waiter in waiters { waiter.resume() }
  }

  var count: Int { storage.withLock { $0.reductions.count } }

  subscript(index: Int) -> Reduction<State, Action> { storage.withLock { $0.reductions[index] } }

  func reductions(from start: Int) -> [Reduction<State, Action>] {
    storage.withLock { Array($0.reductions[min(start, $0.reductions.count)...]) }
  }

  /// Waits until there are more than `count` reductions, or the task is cancelled.
  nonisolated(nonsending) func waitForMore(than count: Int) async {
    await parked(
      issue: { storage.withLock { $0.waiters.issue() } },
      park: { ticket, continuation in
        storage.withLock { storage in
          storage.waiters.park(
            ticket, continuation, unless: storage.reductions.count > count ? () : nil, cancelled: ())
        }
      },
      cancel: { ticket in storage.withLock { $0.waiters.cancel(ticket) } },
      cancelled: ())
  }
}

/// The dripper a ``TestStation`` runs: the feature's, with each reduction recorded and effects'
/// actions marked as received.
struct RecordingDripper<Base: Dripper>: Dripper {
  typealias Body = Never

  /// The feature's reduction, built once, as a Station builds it: its body and its children's
  /// bodies are evaluated when the test starts, not at each action.
  let reduceBase: @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action>
  /// The feature's check after each reduction (see `_Audit`), built with it.
  let auditBase: _Audit<Base.State, Base.Action>?
  let log: ReductionLog<Base.State, Base.Action>
  /// The dependencies in force, which the test may change between steps.
  let dependencies: DependencyBox

  init(base: Base, log: ReductionLog<Base.State, Base.Action>, dependencies: DependencyBox) {
    let built = base._build()
    self.reduceBase = built.reduce
    self.auditBase = built.audit
    self.log = log
    self.dependencies = dependencies
  }

  /// The feature's reduction and its check, which the Station runs after each reduction.
  func _build() -> _Reduction<Base.State, TestAction<Base.Action>> {
    let audit = auditBase.map { audit -> _Audit<Base.State, TestAction<Base.Action>> in
      { state, context in audit(&state, &context).map { .received($0) } }
    }
    return _Reduction(reduce: { self.reduce(into: &$0, action: $1) }, audit: audit)
  }

  func reduce(
    into state: inout Base.State, action: TestAction<Base.Action>
  ) -> Effect<TestAction<Base.Action>> {
    let (action, wasReceived, runsEffects) =
      switch action {
      case .poured(let action): (action, false, true)
      case .received(let action): (action, true, true)
      case .replayed(let action): (action, false, false)
      }
    var effect = reduceWithoutStation(&state, action)
    var reply: (any Sendable)?
    if effect.asksTheHost { effect = hosting(effect, reply: &reply) }
    log.append(
      Reduction(
        action: action, wasReceived: wasReceived, state: state, shared: .ofTheReducingStation(), reply: reply)
    )
    return runsEffects ? effect.map { .received($0) } : .none
  }

  /// `effect` with what it asks of a host as a host would do it: a reminder becomes an effect that
  /// waits on the test's clock until its deadline, as far from the test's `date` as it is from the
  /// reduction's, then pours its action; one of the same id replaces it, `cancelReminder` cancels
  /// it. A reply is kept, for ``TestStation/replies``.
  func hosting(_ effect: Effect<Base.Action>, reply: inout (any Sendable)?) -> Effect<Base.Action> {
    var taken: [HostedEffect<Base.Action>] = []
    var effect = effect.takingHostedEffects(into: &taken)
    let values = dependencies.current
    for request in taken {
      switch request {
      case .remind(let id, let deadline, let action):
        let delay = deadline.timeIntervalSince(values.date.now)
        let clock = values.clock
        effect = effect.merge(
          with: Effect.run(
            operation: { pour in
              try await clock.sleep(for: .milliseconds(Int64((max(0, delay) * 1_000).rounded())))
              await pour(action)
            }, fileID: "a reminder (Effect.remind(_:at:id:))", line: 0
          ).cancellable(id: TestReminderID(id: id), cancelInFlight: true))
      case .cancelReminder(let id):
        effect = effect.merge(with: .cancel(id: TestReminderID(id: id)))
      case .reply(let value):
        reply = value
      }
    }
    return effect
  }

  /// The feature's reduction with the test's dependencies in force: what the Station runs, and
  /// what a replay runs once more to explain a divergence.
  func reduceWithoutStation(_ state: inout Base.State, _ action: Base.Action) -> Effect<Base.Action> {
    let values = dependencies.current
    return withDependencies {
      $0.replace(with: values)
    } operation: {
      reduceBase(&state, action)
    }
  }
}

extension TestAction: DumpsAsDescription {
  /// The action alone, as the feature sees it: what a diagnostic about it shows.
  var description: String {
    switch self {
    case .poured(let action), .received(let action), .replayed(let action): Dump.line(action)
    }
  }
}

/// The cancellation id of a reminder's effect under a ``TestStation``.
struct TestReminderID: Hashable, Sendable {
  let id: String
}
