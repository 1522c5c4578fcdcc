import DripperTesting
import Testing

@testable import Dripper

@Suite struct ScopeTests {
  @Test func theChildRunsBeforeTheParentsOwnLogic() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    await station.pour(.child(.increase)).finish()
    #expect(await station.child.count == 1)
    #expect(await station.log == ["parent saw child at 1"])
  }

  @Test func childEffectsAreMappedBackToParentActions() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    let probe = Probe()
    let task = station.pour(.child(.increaseAfter(probe)))
    probe.release.open()
    await task.finish()
    #expect(await station.child.count == 1)
    #expect(await station.log == ["parent saw child at 1"])
  }

  @Test func onChangeRunsOnlyWhenTheValueChanges() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    await station.pour(.child(.increase)).finish()
    await station.pour(.child(.cancelID)).finish()
    await station.pour(.child(.increase)).finish()
    #expect(await station.changeCount == 2)
  }

  @Test func fiveLevelsDeep() async {
    let station = Station(initialState: Nest5.State()) { Nest5() }
    await station.pour(.inner(.inner(.inner(.inner(.inner(.increase)))))).finish()
    #expect(await station.inner.inner.inner.inner.inner.count == 1)
  }
}

@Suite struct IfLetTests {
  @Test func theChildRunsBeforeTheParent() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.showDetail)
    await station.pour(.detail(.increase)).finish()
    #expect(await station.detail?.count == 1)
    #expect(await station.log == ["parent saw detail at 1"])
  }

  @Test func anActionForANilChildIsADiagnosticNotACrash() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.detail(.increase)).finish()
    #expect(sink.all.map(\.kind) == [.missingChild])
    #expect(
      sink.all.map(\.message) == [
        #"ignored detail(DripperTests.Child.Action.increase): its child state \State.detail is nil (an "#
          + "effect may have outlived the child, or the action was poured after it was dismissed)"
      ])
    #expect(await station.detail == nil)
  }

  @Test func nillingTheChildCancelsItsEffects() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.showDetail)
    let probe = Probe()
    let task = station.pour(.detail(.increaseAfter(probe)))
    await probe.started.wait()
    await station.pour(.hideDetail).finish()
    await probe.cancelled.wait()
    probe.release.open()
    // Cancelled, its pour was dropped.
    await task.finish()
    #expect(await station.log == [])
  }

  @Test func childIDsNeverClashWithTheParents() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.showDetail)
    let detailGate = Gate()
    let childGate = Gate()
    let detailTask = station.pour(.detail(.increaseAfterWithID(detailGate)))
    let childTask = station.pour(.child(.increaseAfterWithID(childGate)))
    // The scoped child shares the parent's namespace; the detail has its own.
    await station.pour(.child(.cancelID)).finish()
    detailGate.open()
    childGate.open()
    await detailTask.finish()
    await childTask.finish()
    #expect(await station.detail?.count == 1)
    #expect(await station.child.count == 0)
  }
}

@Suite struct ForEachTests {
  @Test func anElementActionRunsTheElementThenTheParent() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    await station.pour(.rows(.element(id: 2, action: .increase))).finish()
    #expect(await station.rows.map(\.count) == [0, 1])
    #expect(await station.log == ["parent saw row 2 at 1"])
  }

  @Test func anActionForAMissingIDIsADiagnostic() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.rows(.element(id: 9, action: .increase))).finish()
    #expect(sink.all.map(\.kind) == [.missingChild])
    #expect(
      sink.all.map(\.message) == [
        "ignored rows(Dripper.IdentifiedAction<Swift.Int, DripperTests.Child.Action>.element(id: 9, "
          + #"action: DripperTests.Child.Action.increase)): no element of \State.rows has the id 9 (an "#
          + "effect may have outlived its element, or the action was poured after it was removed)"
      ])
  }

  @Test func removingAnElementCancelsItsEffectsAndOnlyItsEffects() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    let first = Probe()
    let second = Probe()
    let firstTask = station.pour(.rows(.element(id: 1, action: .increaseAfter(first))))
    let secondTask = station.pour(.rows(.element(id: 2, action: .increaseAfter(second))))
    await first.started.wait()
    await second.started.wait()
    await station.pour(.removeRow(1)).finish()
    await first.cancelled.wait()
    first.release.open()
    await firstTask.finish()
    #expect(!second.cancelled.isOpen)
    second.release.open()
    await secondTask.finish()
    #expect(await station.rows.map(\.count) == [1])
  }

  @Test func elementIDsAreScopedToTheirElement() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    let first = Gate()
    let second = Gate()
    let firstTask = station.pour(.rows(.element(id: 1, action: .increaseAfterWithID(first))))
    let secondTask = station.pour(.rows(.element(id: 2, action: .increaseAfterWithID(second))))
    await station.pour(.rows(.element(id: 1, action: .cancelID))).finish()
    first.open()
    second.open()
    await firstTask.finish()
    await secondTask.finish()
    #expect(await station.rows.map(\.count) == [0, 1])
  }
}

@Suite struct EnumStateTests {
  @Test func theChildRunsOnlyInItsCase() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: ModeFeature.State.off) {
      ModeFeature()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.child(.increase)).finish()
    #expect(sink.all.map(\.kind) == [.missingChild])
    #expect(
      sink.all.map(\.message) == [
        "ignored child(DripperTests.Child.Action.increase): it is for a child in a case of State that "
          + "the state is not in (an effect may have outlived its case)"
      ])
    station.pour(.turnOn)
    await station.pour(.child(.increase)).finish()
    #expect(await station.state == .on(Child.State(count: 1)))
  }

  @Test func leavingTheCaseCancelsTheChildsEffects() async {
    let station = Station(initialState: ModeFeature.State.off) { ModeFeature() }
    station.pour(.turnOn)
    let probe = Probe()
    let task = station.pour(.child(.increaseAfter(probe)))
    await probe.started.wait()
    await station.pour(.turnOff).finish()
    await probe.cancelled.wait()
    probe.release.open()
    await task.finish()
    #expect(await station.state == .off)
  }

  @Test func aScopeOverACaseWorksLikeIfCaseLet() async {
    struct Switch: Dripper {
      var body: some Dripper<ModeFeature.State, ModeFeature.Action> {
        Scope(state: .on, action: .child) { Child() }
        Drip { state, action in
          if case .turnOn = action { state = .on(Child.State()) }
          return .none
        }
      }
    }
    let sink = DiagnosticsSink()
    let station = Station(initialState: ModeFeature.State.off) {
      Switch()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.child(.increase)).finish()
    station.pour(.turnOn)
    await station.pour(.child(.increase)).finish()
    #expect(await station.state == .on(Child.State(count: 1)))
    #expect(sink.all.count == 1)
  }
}

@Suite struct ScopedStationTests {
  @Test func aScopedStationPoursIntoItsParentAndReadsItsPart() async {
    let parent = Station(initialState: Parent.State()) { Parent() }
    let child = parent.scope(state: \.child, action: .child)
    child.pour(.increase)
    await child.pour(.increase).finish()
    #expect(await child.count == 2)
    #expect(await child.state == Child.State(count: 2))
    #expect(await parent.log == ["parent saw child at 1", "parent saw child at 2"])
  }

  @Test func aScopedStationKeepsItsParentAlive() async {
    var parent: StationOf<Parent>? = Station(initialState: Parent.State()) { Parent() }
    let child = parent!.scope(state: \.child, action: .child)
    parent = nil
    await child.pour(.increase).finish()
    #expect(await child.count == 1)
  }

  @Test func scopesCompose() async {
    let root = Station(initialState: Nest5.State()) { Nest5() }
    let deep = root.scope(state: \.inner, action: .inner).scope(state: \.inner, action: .inner)
    await deep.pour(.inner(.inner(.inner(.increase)))).finish()
    #expect(await root.inner.inner.inner.inner.inner.count == 1)
  }
}

@Suite struct CombineDrippersTests {
  @Test func combinedDrippersRunInOrderUnderOneModifier() async {
    struct Feature: Dripper {
      var body: some Dripper<[String], String> {
        CombineDrippers {
          Append(name: "a")
          Append(name: "b")
        }
        .onChange(of: \.count) { _, new in new == 2 ? .send("changed") : .none }
      }
    }
    let station = Station(initialState: [String]()) { Feature() }
    await station.pour("go").finish()
    #expect(await station.state == ["a", "b", "a", "b"])
  }
}

// MARK: - Five levels of nesting

/// A feature nested in itself `Depth` times, with a counter at the bottom.
struct Nest5: Dripper {
  struct State: Equatable, Sendable { var inner = Nest4.State() }
  enum Action: Sendable { case inner(Nest4.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest4() } }
}

struct Nest4: Dripper {
  struct State: Equatable, Sendable { var inner = Nest3.State() }
  enum Action: Sendable { case inner(Nest3.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest3() } }
}

struct Nest3: Dripper {
  struct State: Equatable, Sendable { var inner = Nest2.State() }
  enum Action: Sendable { case inner(Nest2.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest2() } }
}

struct Nest2: Dripper {
  struct State: Equatable, Sendable { var inner = Nest1.State() }
  enum Action: Sendable { case inner(Nest1.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest1() } }
}

struct Nest1: Dripper {
  struct State: Equatable, Sendable { var inner = Child.State() }
  enum Action: Sendable { case inner(Child.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Child() } }
}

extension CasePath<Nest5.Action, Nest4.Action> {
  static var inner: Self { Self(Nest5.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest4.Action, Nest3.Action> {
  static var inner: Self { Self(Nest4.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest3.Action, Nest2.Action> {
  static var inner: Self { Self(Nest3.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest2.Action, Nest1.Action> {
  static var inner: Self { Self(Nest2.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest1.Action, Child.Action> {
  static var inner: Self { Self(Nest1.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}

/// A ticker that pours a tick one second after it starts.
private struct Ticker: Dripper {
  struct State: Equatable, Sendable { var ticks = 0 }
  enum Action: Equatable, Sendable { case start, tick }
  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .start:
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.tick)
        }
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }
}

/// Two cases of one enum, each a ticker, each scoped with its own `ifCaseLet`.
private struct Sides: Dripper {
  enum State: Equatable, Sendable {
    case left(Ticker.State)
    case right(Ticker.State)
  }
  enum Action: Equatable, Sendable {
    case left(Ticker.Action)
    case right(Ticker.Action)
    case switchToRight
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      guard case .switchToRight = action else { return .none }
      state = .right(Ticker.State())
      return .send(.right(.start))
    }
    .ifCaseLet(
      CasePath(State.left) { if case .left(let s) = $0 { s } else { nil } },
      action: CasePath(Action.left) { if case .left(let a) = $0 { a } else { nil } }
    ) { Ticker() }
    .ifCaseLet(
      CasePath(State.right) { if case .right(let s) = $0 { s } else { nil } },
      action: CasePath(Action.right) { if case .right(let a) = $0 { a } else { nil } }
    ) { Ticker() }
  }
}

@Suite struct SiblingNamespaceTests {
  /// Leaving `.left` cancels the left ticker's effects in the reduction that sends the right
  /// ticker's start: the right ticker, a sibling over the same child type, keeps its effect. (Each
  /// `ifCaseLet` is a namespace of its own, told apart by where it is written; and a `.send` is
  /// reduced after the cancellations of the effect that carries it, so even one shared namespace
  /// would not lose this tick. The test pins the behaviour either way.)
  @Test func leavingOneCaseDoesNotCancelASiblingOverTheSameChildType() async {
    let clock = TestClock()
    let station = TestStation(initialState: Sides.State.left(Ticker.State())) {
      Sides()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.left(.start))
    await station.pour(.switchToRight) { $0 = .right(Ticker.State()) }
    await station.receive(.right(.start))
    await clock.advance(by: .seconds(1))
    await station.receive(.right(.tick)) { $0 = .right(Ticker.State(ticks: 1)) }
    await station.finish()
  }
}
