import Testing

@testable import Dripper

@Suite struct EffectTests {
  enum Child: Equatable, Sendable { case done(Int) }
  enum Parent: Equatable, Sendable { case child(Child) }

  @Test func mapEmbedsEveryActionAnEffectPours() async {
    let pours = Recorder<Parent>()
    let child = Effect<Child>.merge(
      .send(.done(1)),
      .run { pour in
        await pour(.done(2))
      } catch: { _, _ in
      }
    )
    let parent = child.map(Parent.child)
    guard case .merge(let parts) = parent.operation else {
      Issue.record("expected a merge")
      return
    }
    guard case .send(let sent) = parts[0].operation, case .run(let run) = parts[1].operation else {
      Issue.record("expected a send and a run")
      return
    }
    #expect(sent == .child(.done(1)))
    try? await run.operation(Pour { pours.append($0) })
    #expect(pours.all == [.child(.done(2))])
  }

  @Test func runTakesItsPriorityOrNone() async {
    guard case .run(let prioritized) = Effect<Int>.run(priority: .high, operation: { _ in }).operation,
      case .run(let plain) = Effect<Int>.run(operation: { _ in }).operation,
      case .run(let explicitlyNone) = Effect<Int>.run(priority: nil, operation: { _ in }).operation
    else {
      Issue.record("expected three runs")
      return
    }
    #expect(prioritized.priority == .high)
    #expect(plain.priority == nil)
    #expect(explicitlyNone.priority == nil)

    let station = Station(initialState: TaskPriority?.none) {
      Drip<TaskPriority?, TaskPriority?> { state, action in
        guard let action else { return .run(priority: .high) { pour in await pour(Task.currentPriority) } }
        state = action
        return .none
      }
    }
    await station.pour(nil).finish()
    #expect(await station.state == .high)
  }

  @Test func mergingAndConcatenatingNothingIsNothing() {
    #expect(Effect<Int>.merge().isNone)
    #expect(Effect<Int>.concatenate(.none, .none).isNone)
    #expect(Effect<Int>.none.cancellable(id: 1).isNone)
    #expect(Effect<Int>.none.debounce(id: 1, for: .seconds(1), clock: ImmediateClock()).isNone)
  }

  @Test func mergesFlatten() {
    let merged = Effect<Int>.send(1).merge(with: .send(2)).merge(with: .send(3))
    guard case .merge(let parts) = merged.operation else {
      Issue.record("expected a merge")
      return
    }
    #expect(parts.count == 3)
  }
}
