import DripperTesting
import Synchronization
import Testing

@testable import Dripper

/// A Station builds its dripper's reduction once, children included: a child's `body` is
/// evaluated when the Station starts, not at each action that reaches it, at any depth and
/// through every combinator. Before, only the Station's own dripper was: five levels of `Scope`
/// evaluated four bodies at each pour.
@Suite struct BodyEvaluationTests {
  @Test func childrenOfEveryCombinatorAreEvaluatedOnce() async {
    for route in Holder.Route.allCases {
      let evaluations = Evaluations()
      let station = Station(initialState: Holder.State()) { Holder(evaluations: evaluations, via: route) }
      for _ in 0..<10 { station.pour(.counted(.increase)) }
      await station.pour(.counted(.increase)).finish()
      #expect(await station.counted.count == 11, "\(route)")
      #expect(evaluations.count == 1, "\(route)")
    }
  }

  @Test func optionalChildrenAndElementsAreEvaluatedOnce() async {
    for route in Containers.Route.allCases {
      let evaluations = Evaluations()
      let station = Station(initialState: Containers.State()) {
        Containers(evaluations: evaluations, via: route)
      }
      for _ in 0..<10 {
        switch route {
        case .ifLet: station.pour(.optional(.increase))
        case .forEach:
          station.pour(.rows(.element(id: 1, action: .increase)))
          station.pour(.rows(.element(id: 2, action: .increase)))
        case .stack: station.pour(.stack(.element(id: 0, action: .increase)))
        case .presentation: station.pour(.presented(.presented(.increase)))
        case .caseOf: station.pour(.either(.increase))
        }
      }
      await station.reducePending()
      let state = await station.state
      switch route {
      case .ifLet: #expect(state.optional?.count == 10)
      case .forEach: #expect(state.rows.map(\.count) == [10, 10])
      case .stack: #expect(state.stack.map(\.count) == [10])
      case .presentation: #expect(state.presented?.count == 10)
      case .caseOf: #expect(state.either == .counted(Counted.State(count: 10)))
      }
      #expect(evaluations.count == 1, "\(route)")
    }
  }

  @Test func aTestStationEvaluatesTheBodiesOnceToo() async {
    let evaluations = Evaluations()
    let station = TestStation(initialState: Holder.State()) { Holder(evaluations: evaluations, via: .scope) }
    await station.pour(.counted(.increase)) { $0.counted.count = 1 }
    await station.pour(.counted(.increase)) { $0.counted.count = 2 }
    await station.finish()
    #expect(evaluations.count == 1)
  }
}

/// Counts how many times a ``Counted`` body was evaluated.
private final class Evaluations: Sendable {
  private let value = Atomic<Int>(0)
  var count: Int { value.load(ordering: .relaxed) }
  func record() -> Bool {
    value.add(1, ordering: .relaxed)
    return true
  }
}

/// A child whose body records each evaluation.
private struct Counted: Dripper {
  struct State: Equatable, Identifiable, Sendable {
    var id = 0
    var count = 0
  }
  enum Action: Equatable, Sendable { case increase }

  let evaluations: Evaluations

  var body: some DripperOf<Self> {
    let _ = evaluations.record()
    Drip { state, _ in
      state.count += 1
      return .none
    }
  }
}

/// Holds a ``Counted`` child through one combinator or another.
private struct Holder: Dripper {
  struct State: Equatable, Sendable {
    var counted = Counted.State()
    var table = EntityTable<Counted.State>()
  }
  enum Action: Equatable, Sendable {
    case counted(Counted.Action)
  }
  enum Route: CaseIterable {
    case scope, dependency, combined, erased, observed, changes, logged, branch, array, tracked
  }

  let evaluations: Evaluations
  let via: Route

  var body: some DripperOf<Self> {
    switch via {
    case .scope:
      Scope(state: \.counted, action: .counted) { Counted(evaluations: evaluations) }
    case .dependency:
      Scope(state: \.counted, action: .counted) {
        Counted(evaluations: evaluations).dependency(\.clock, ImmediateClock())
      }
    case .combined:
      CombineDrippers { Scope(state: \.counted, action: .counted) { Counted(evaluations: evaluations) } }
    case .erased:
      Drip.erasing(Scope(state: \.counted, action: .counted) { Counted(evaluations: evaluations) })
    case .observed:
      Scope(state: \.counted, action: .counted) {
        Counted(evaluations: evaluations).observe(DripperObserver(willReduce: { _, _ in }))
      }
    case .changes:
      Scope(state: \.counted, action: .counted) {
        Counted(evaluations: evaluations).onChange(of: \.count) { _, _ in EmptyDripper() }
      }
    case .logged:
      Scope(state: \.counted, action: .counted) {
        Counted(evaluations: evaluations).logChanges(to: LogSink { _ in })
      }
    case .branch:
      if via == .branch {
        Scope(state: \.counted, action: .counted) { Counted(evaluations: evaluations) }
      }
    case .array:
      for _ in 0..<1 {
        Scope(state: \.counted, action: .counted) { Counted(evaluations: evaluations) }
      }
    case .tracked:
      Scope(state: \.counted, action: .counted) { Counted(evaluations: evaluations) }
        .tracksChanges(of: \.table)
    }
  }
}

/// Holds ``Counted`` children as an optional child or as the rows of a list.
private struct Containers: Dripper {
  struct State: Equatable, Sendable {
    var optional: Counted.State? = Counted.State()
    var rows = IdentifiedArray([Counted.State(id: 1), Counted.State(id: 2)])
    var stack = StackState([Counted.State()])
    @PresentationState var presented: Counted.State? = Counted.State()
    var either = Either.counted(Counted.State())
  }
  enum Either: Equatable, Sendable {
    case counted(Counted.State)
    case nothing
  }
  enum Action: Sendable {
    case optional(Counted.Action)
    case rows(IdentifiedAction<Int, Counted.Action>)
    case stack(StackAction<Counted.State, Counted.Action>)
    case presented(PresentationAction<Counted.Action>)
    case either(Counted.Action)
  }
  enum Route: CaseIterable { case ifLet, forEach, stack, presentation, caseOf }

  let evaluations: Evaluations
  let via: Route

  var body: some DripperOf<Self> {
    switch via {
    case .ifLet:
      EmptyDripper().ifLet(\.optional, action: .optional) { Counted(evaluations: evaluations) }
    case .forEach:
      EmptyDripper().forEach(\.rows, action: .rows) { Counted(evaluations: evaluations) }
    case .stack:
      EmptyDripper().forEach(\.stack, action: .stack) { Counted(evaluations: evaluations) }
    case .presentation:
      EmptyDripper().ifLet(\.$presented, action: .presented) { Counted(evaluations: evaluations) }
    case .caseOf:
      Scope(state: \.either, action: .either) {
        EmptyDripper().ifCaseLet(.counted, action: .identity) { Counted(evaluations: evaluations) }
      }
    }
  }
}

extension CasePath<Containers.Action, Counted.Action> {
  fileprivate static var optional: Self {
    Self(Containers.Action.optional) { if case .optional(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Containers.Action, StackAction<Counted.State, Counted.Action>> {
  fileprivate static var stack: Self {
    Self(Containers.Action.stack) { if case .stack(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Containers.Action, PresentationAction<Counted.Action>> {
  fileprivate static var presented: Self {
    Self(Containers.Action.presented) { if case .presented(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Containers.Action, Counted.Action> {
  fileprivate static var either: Self {
    Self(Containers.Action.either) { if case .either(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Containers.Either, Counted.State> {
  fileprivate static var counted: Self {
    Self(Containers.Either.counted) { if case .counted(let s) = $0 { s } else { nil } }
  }
}

extension CasePath<Counted.Action, Counted.Action> {
  fileprivate static var identity: Self { Self({ $0 }, extract: { $0 }) }
}

extension CasePath<Containers.Action, IdentifiedAction<Int, Counted.Action>> {
  fileprivate static var rows: Self {
    Self(Containers.Action.rows) { if case .rows(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Holder.Action, Counted.Action> {
  fileprivate static var counted: Self {
    Self(Holder.Action.counted) { if case .counted(let a) = $0 { a } else { nil } }
  }
}
