@testable import Dripper

/// The gates of one effect: opened when it starts and when it sees cancellation; it ends when
/// released.
final class Probe: Sendable {
  let started = Gate()
  let cancelled = Gate()
  let release = Gate()
}

/// A child feature: a counter whose effects wait on a gate, so that tests control when they end.
struct Child: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    var id = 0
    var count = 0
  }

  enum Action: Sendable {
    case increase
    /// Waits for the probe's release, then increases: an effect still running until the test says.
    case increaseAfter(Probe)
    /// Waits until it is cancelled, then pours `.increase` as a pour that found its task live just
    /// before the cancellation would: one on its way to the actor as the child left.
    case increaseInFlight(Probe)
    /// The same, under a cancellation id.
    case increaseAfterWithID(Gate)
    case cancelID
    case sawCancellation
    /// Increases, throttled to once every ten seconds on `clock`.
    case throttledIncrease(TestClock)
  }

  struct EffectID: Hashable, Sendable {}

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase:
        state.count += 1
        return .none
      case .increaseAfter(let probe):
        return .run { pour in
          probe.started.open()
          await withTaskCancellationHandler {
            await probe.release.wait()
          } onCancel: {
            probe.cancelled.open()
          }
          await pour(.increase)
        }
      case .increaseInFlight(let probe):
        return .run { pour in
          probe.started.open()
          await probe.release.wait()
          await pour.sink(.increase, false)
        }
      case .increaseAfterWithID(let gate):
        return .run { pour in
          await gate.wait()
          await pour(.increase)
        }
        .cancellable(id: EffectID())
      case .cancelID:
        return .cancel(id: EffectID())
      case .sawCancellation:
        return .none
      case .throttledIncrease(let clock):
        return .send(.increase).throttle(id: EffectID(), for: .seconds(10), clock: clock, latest: true)
      }
    }
  }
}

/// A parent with a scoped child, an optional child, a list of children and an enum-shaped child.
struct Parent: Dripper {
  struct State: Equatable, Sendable {
    var child = Child.State()
    var detail: Child.State?
    var rows: IdentifiedArrayOf<Child.State> = []
    var mode = ModeFeature.State.off
    /// What the parent's own logic saw, in order.
    var log: [String] = []
    var changeCount = 0
  }

  enum Action: Sendable {
    case child(Child.Action)
    case detail(Child.Action)
    case rows(IdentifiedAction<Int, Child.Action>)
    case mode(ModeFeature.Action)
    case showDetail
    case hideDetail
    case addRow(Int)
    case removeRow(Int)
    case changed
  }

  var body: some DripperOf<Self> {
    CombineDrippers {
      Scope(state: \.child, action: .child) { Child() }
      Scope(state: \.mode, action: .mode) { ModeFeature() }
      Drip { state, action in
        switch action {
        case .child(.increase): state.log.append("parent saw child at \(state.child.count)")
        case .detail(.increase): state.log.append("parent saw detail at \(state.detail?.count ?? -1)")
        case .rows(.element(let id, .increase)):
          state.log.append("parent saw row \(id) at \(state.rows[id: id]?.count ?? -1)")
        case .showDetail: state.detail = Child.State()
        case .hideDetail: state.detail = nil
        case .addRow(let id): state.rows.append(Child.State(id: id))
        case .removeRow(let id): state.rows.remove(id: id)
        case .changed: state.changeCount += 1
        default: break
        }
        return .none
      }
      .ifLet(\.detail, action: .detail) { Child() }
      .forEach(\.rows, action: .rows) { Child() }
    }
    .onChange(of: \.child.count) { _, _ in .send(.changed) }
  }
}

extension CasePath<Parent.Action, Child.Action> {
  static var child: Self { Self(Parent.Action.child) { if case .child(let a) = $0 { a } else { nil } } }
  static var detail: Self { Self(Parent.Action.detail) { if case .detail(let a) = $0 { a } else { nil } } }
}

extension CasePath<Parent.Action, ModeFeature.Action> {
  static var mode: Self { Self(Parent.Action.mode) { if case .mode(let a) = $0 { a } else { nil } } }
}

/// A feature whose state is an enum: its child runs only while it is on.
struct ModeFeature: Dripper {
  enum State: Equatable, Sendable {
    case off
    case on(Child.State)
  }

  enum Action: Sendable {
    case child(Child.Action)
    case turnOn
    case turnOff
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .turnOn: state = .on(Child.State())
      case .turnOff: state = .off
      case .child: break
      }
      return .none
    }
    .ifCaseLet(.on, action: .child) { Child() }
  }
}

extension CasePath<ModeFeature.State, Child.State> {
  static var on: Self { Self(ModeFeature.State.on) { if case .on(let s) = $0 { s } else { nil } } }
}

extension CasePath<ModeFeature.Action, Child.Action> {
  static var child: Self { Self(ModeFeature.Action.child) { if case .child(let a) = $0 { a } else { nil } } }
}

extension CasePath<Parent.Action, IdentifiedAction<Int, Child.Action>> {
  static var rows: Self { Self(Parent.Action.rows) { if case .rows(let a) = $0 { a } else { nil } } }
}
